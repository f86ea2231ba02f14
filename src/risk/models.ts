import { readFileSync } from 'node:fs';
import type { RiskModel } from '../flight/index.ts';
import { parseArtifact, type RiskArtifact } from './artifact.ts';
import { fitV2, riskModelV2 } from './risk-model-v2.ts';

/** The shipped model's file, fitted on the shared January–March 2008 history (`npm run risk:fit-default`). */
export const DEFAULT_ARTIFACT_URL = new URL('./models/v2-2008q1.json.gz', import.meta.url);

let defaultArtifact: RiskArtifact | undefined;

/** The shipped model: fitted on the three shared months. Read once. */
export function defaultRiskArtifact(): RiskArtifact {
  defaultArtifact ??= parseArtifact(readFileSync(DEFAULT_ARTIFACT_URL));
  return defaultArtifact;
}

const models = new WeakMap<RiskArtifact, RiskModel>();

/**
 * A RiskModel pricing with an artifact; its version is the artifact's. Fits the factors once, here
 * (a few passes over the cells), and once per artifact object: every app built in one process from
 * `defaultRiskArtifact()` shares the model. An artifact is treated as immutable once parsed or fitted.
 */
export function riskModelFromArtifact(artifact: RiskArtifact): RiskModel {
  let model = models.get(artifact);
  if (!model) models.set(artifact, (model = riskModelV2(fitV2(artifact))));
  return model;
}
