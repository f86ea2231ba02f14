import crypto from 'node:crypto';
import { DEMO_INSURER, type Config } from '../platform/config.ts';
import type { Db } from '../platform/db.ts';
import { createApiKey } from './api-keys.ts';
import { setConfiguration } from './configuration.ts';
import { insurerOfPlatform, setDocuments } from './documents.ts';
import { createPartner, setAgreement, setSubscription, signAgreement } from './partners.ts';
import { APIS, type DocumentSetInput } from './model.ts';
import { anyPartnerExists, findAgreement, findDocuments, findPartner } from './partners-repo.ts';
import { createUser } from './users.ts';

export const DEMO_PARTNER = { slug: 'demo-air', name: 'Demo Air' } as const;

const demoSha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The demo agreement's compliance pack. The demo partner sells in the sandbox only: its documents
 * are placeholders on example.org, hashed from their titles, so that quotes and subscriptions carry
 * a pack exactly as a real partner's do. The seed names the platform's insurer (`demoDocuments`).
 */
export const DEMO_DOCUMENTS = {
  ipid: {
    url: 'https://example.org/parasol/demo-air/ipid-v1.pdf',
    version: 'IPID-2026-1',
    sha256: demoSha256('Demo Air flight delay insurance: product information document, IPID-2026-1'),
  },
  terms: {
    url: 'https://example.org/parasol/demo-air/terms-v1.pdf',
    version: 'CG-2026-1',
    sha256: demoSha256('Demo Air flight delay insurance: terms and conditions, CG-2026-1'),
  },
  // the default platform insurer's identity (PARASOL_INSURER_* unset), as every SMS, email and page names it
  insurer: insurerOfPlatform(DEMO_INSURER),
};

/**
 * The demo pack naming the platform's insurer (PARASOL_INSURER_*): a quote's `insurer` and the
 * customer's SMS, emails and bank-details page then name the same company.
 */
export function demoDocuments(insurer: Config['insurer']): DocumentSetInput {
  return { ...DEMO_DOCUMENTS, insurer: insurerOfPlatform(insurer) };
}

export interface SeedResult {
  partnerId: string;
  /** The demo sandbox key when it was generated here (to print once); undefined when configured. */
  generatedApiKey: string | undefined;
  userEmail: string | undefined;
}

/**
 * On an empty database, creates the demo partner "Demo Air": a signed agreement for the three
 * formulas in EUR with its documents (`demoDocuments`: the platform's insurer), subscriptions to the three APIs, a configuration, a sandbox key and, when
 * configured, a portal user. Does nothing when any partner already exists.
 */
export async function seedDemo(db: Db, config: Pick<Config, 'demo' | 'insurer'>): Promise<SeedResult | undefined> {
  if (await anyPartnerExists(db)) {
    await documentDemoPartner(db, config.insurer);
    return undefined;
  }
  const actor = 'seed';
  let partner;
  try {
    partner = await createPartner(db, actor, DEMO_PARTNER);
  } catch {
    return undefined; // another process seeded first
  }
  await setAgreement(db, actor, partner.id, {
    allowedFormulas: ['delay', 'cancellation', 'delay_and_cancellation'],
    currency: 'EUR',
    taxRate: '0.09',
    commissionMin: '0',
    commissionMax: '0.35',
    compensationMin: 1_000,
    compensationMax: 60_000,
  });
  await signAgreement(db, actor, partner.id);
  await setDocuments(db, actor, partner.id, demoDocuments(config.insurer));
  for (const api of APIS) await setSubscription(db, actor, partner.id, api, true);
  await setConfiguration(db, actor, partner.id, {
    formula: 'delay_and_cancellation',
    delayTiers: [
      { minDelayMinutes: 120, amount: 5_000 },
      { minDelayMinutes: 180, amount: 10_000 },
      { minDelayMinutes: 300, amount: 20_000 },
    ],
    cancellationAmount: 25_000,
    commissionRate: '0.2',
  });
  const { plaintext } = await createApiKey(db, actor, {
    partnerId: partner.id,
    environment: 'sandbox',
    label: 'demo',
    plaintext: config.demo.apiKey,
  });
  let userEmail: string | undefined;
  if (config.demo.email && config.demo.password) {
    userEmail = (
      await createUser(db, actor, { partnerId: partner.id, email: config.demo.email, password: config.demo.password })
    ).email;
  }
  return { partnerId: partner.id, generatedApiKey: config.demo.apiKey ? undefined : plaintext, userEmail };
}

/**
 * A database seeded before the compliance pack (migration 0022) has a demo partner without
 * documents, which could no longer quote: it gets the demo pack once. Real partners are not
 * touched — their documents are the insurer's to attach.
 */
async function documentDemoPartner(db: Db, insurer: Config['insurer']): Promise<void> {
  const demo = await findPartner(db, DEMO_PARTNER.slug);
  if (!demo || !(await findAgreement(db, demo.id)) || (await findDocuments(db, demo.id))) return;
  try {
    await setDocuments(db, 'seed', demo.id, demoDocuments(insurer));
  } catch {
    // another process documented it first
  }
}
