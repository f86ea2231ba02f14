import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { WebhookEndpointCache } from './endpoint-cache.ts';
import type { Resolver } from './webhook-url.ts';

/** What the webhook use cases, events and delivery need. */
export interface WebhookDeps {
  db: Db;
  jobs: JobQueue;
  keys: Keyring;
  /** PARASOL_WEBHOOKS_ALLOW_PRIVATE */
  allowPrivate: boolean;
  now: () => Date;
  resolve?: Resolver | undefined;
  /** PARASOL_PUBLIC_URL: the console link in the email telling a partner Parasol paused an endpoint (none: no link). */
  publicUrl?: string | undefined;
  /** This process's cache of live endpoints, dropped at once by the use cases that change endpoints (none: the CLI). */
  endpoints?: WebhookEndpointCache | undefined;
}
