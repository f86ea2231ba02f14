/**
 * The risk domain's public face: flight history, the fitted risk model (version 2), its evaluation,
 * and its versions in the database (which one prices each environment, refits from the platform's
 * own outcomes). The pricing side consumes `RiskModel` / `RiskModelSource` (src/flight/risk-model.ts).
 */
import { riskModelV1 } from '../flight/index.ts';
import type { Db } from '../platform/db.ts';
import { DbRiskModelSource } from './model-source.ts';
import { ensureDefaultModel } from './model-versions.ts';
import { defaultRiskArtifact } from './models.ts';

export { readHistory, HistoryFormatError, type FlightObservation } from './history.ts';
export {
  fitArtifact,
  serializeArtifact,
  parseArtifact,
  ArtifactFormatError,
  DELAY_THRESHOLDS,
  type RiskArtifact,
} from './artifact.ts';
export { fitV2, globalAverage, survivalAt, UnpriceableLegError, type FittedV2 } from './risk-model-v2.ts';
export { DEFAULT_ARTIFACT_URL, defaultRiskArtifact, riskModelFromArtifact } from './models.ts';
export { DbRiskModelSource } from './model-source.ts';
export {
  activateModelVersion,
  ensureDefaultModel,
  importVersion,
  listModelVersions,
  OBSERVED_ENVIRONMENTS,
  readModelArtifact,
  refitFromOutcomes,
  refitVersionName,
  REFITS_PER_MINUTE,
  type RefitOutcome,
  type RiskModelVersionRow,
} from './model-versions.ts';

/** How often an API process reloads which version prices each environment. */
export const RISK_MODELS_REFRESH_MS = 30_000;

/**
 * The models that price quotes, from the database: stores the shipped model on the first start, then
 * loads the version active in each environment (version 1 only until one is activated). A version
 * that cannot be built is reported through `onError` and its environment prices with the shipped one.
 */
export async function openRiskModels(db: Db, onError: (error: Error) => void): Promise<DbRiskModelSource> {
  await ensureDefaultModel(db);
  return DbRiskModelSource.open(db, {
    fallback: riskModelV1,
    shipped: defaultRiskArtifact().version,
    refreshMs: RISK_MODELS_REFRESH_MS,
    onError,
  });
}

export { SCORED_EVENTS, evaluateModel, evaluationLines, predictObservation } from './evaluate.ts';
