import type { Caller } from '../platform/auth.ts';
import type { Keyring } from '../platform/crypto.ts';

/** What the Demo API's use cases need; built once by the app. No database: quotes write nothing. */
export interface HomeDeps {
  keys: Keyring;
  now: () => Date;
}

export type { Caller };

export type { Money } from '../platform/money.ts';
