import type { Caller } from '../platform/auth.ts';
import type { PartnerDirectory } from '../partners/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { QuoteCounter } from './quote-counter.ts';
import type { RiskModelSource } from './risk-model.ts';
import type { LimitsSnapshot } from '../limits/index.ts';
import type { WebhookEndpointCache } from '../webhooks/index.ts';

/** What the Flight Delay use cases need; built once by the app. */
export interface FlightDeps {
  db: Db;
  jobs: JobQueue;
  directory: PartnerDirectory;
  keys: Keyring;
  /** The risk models: the active one per environment prices new quotes. */
  riskModels: RiskModelSource;
  quoteTtlMinutes: number;
  now: () => Date;
  /** Counts quotes for the console's statistics (flushed by the app); none: not counted. */
  quoteCounter?: QuoteCounter | undefined;
  /** Caps and stop-sales as the quote path sees them (docs/limits.md); none: quotes are not checked. */
  limits?: LimitsSnapshot | undefined;
  /** The live webhook endpoints per partner, so the writes' events cost no lookup; none: one query each. */
  webhookEndpoints?: WebhookEndpointCache | undefined;
}

export type { Caller };

export { money, type Money } from '../platform/money.ts';
