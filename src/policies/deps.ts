import type { Caller } from '../platform/auth.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';

/** What the policy use cases need; built once by the app. */
export interface PolicyDeps {
  db: Db;
  keys: Keyring;
  now: () => Date;
}

export type { Caller };
