import { audit } from '../platform/audit.ts';
import { randomToken, sha256Hex } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { maskPersonalDataIn, typedTooLong } from '../platform/personal-text.ts';
import { ENVIRONMENTS, type ApiKeyInfo, type Environment } from './model.ts';
import * as repo from './partners-repo.ts';
import { requireActingUser } from './users.ts';

/**
 * API keys: `psl_<env>_<32 random base64url chars>` (192 bits), so the environment shows in logs
 * and secret scanners can match them. Only the SHA-256 of a key is stored: keys are long random
 * strings, so a fast hash is enough (unlike passwords). The plaintext is returned once, at creation.
 */
export const KEY_PREFIXES: Record<Environment, string> = {
  sandbox: 'psl_sbx_',
  preproduction: 'psl_pre_',
  production: 'psl_live_',
};

/**
 * What any API key looks like: 24 to 200 URL-safe characters (generated keys are a prefix and 32
 * base64url characters; the demo key chosen with PARASOL_DEMO_API_KEY is 24+ URL-safe characters).
 * A presented key of another shape is refused without asking the database.
 */
export const API_KEY_FORMAT = /^[A-Za-z0-9_-]{24,200}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const hashApiKey = (plaintext: string): string => sha256Hex(plaintext);

function display(plaintext: string): string {
  const prefix = Object.values(KEY_PREFIXES).find((p) => plaintext.startsWith(p)) ?? '';
  return `${prefix}${plaintext.slice(prefix.length, prefix.length + 4)}…${plaintext.slice(-4)}`;
}

export interface CreatedApiKey {
  key: ApiKeyInfo;
  /** Shown once; never stored. */
  plaintext: string;
}

/**
 * The environment a key is asked for, as a form sends it: one of `ENVIRONMENTS`, else `validation_failed` on
 * `/environment` — `required` when none was chosen, `not_allowed` for another (a forged form). The portal's
 * and the operator console's key forms read it here, so both refuse alike.
 */
export function parseEnvironment(value: string): Environment {
  if ((ENVIRONMENTS as readonly string[]).includes(value)) return value as Environment;
  throw new DomainError('validation_failed', 'Choose an environment.', {
    errors: [
      value
        ? { field: '/environment', code: 'not_allowed', message: `must be one of ${ENVIRONMENTS.join(', ')}` }
        : { field: '/environment', code: 'required', message: 'is required' },
    ],
  });
}

/** The longest label an API key is given, as typed (its masked form is never longer). */
export const MAX_LABEL_LENGTH = 100;

/**
 * Creates a key of the partner. `input.userId`: the partner user creating it from the portal, whose
 * right (`keys`) is checked again in the transaction (`requireActingUser`); absent for operators.
 */
export async function createApiKey(
  db: Db,
  actor: string,
  input: {
    partnerId: string;
    environment: Environment;
    label?: string | undefined;
    plaintext?: string | undefined;
    userId?: string | undefined;
  },
): Promise<CreatedApiKey> {
  // as typed, before masking: the limit every caller states (the consoles' forms, the CLI's --label)
  const labelError = typedTooLong(input.label ?? '', { field: '/label', typed: MAX_LABEL_LENGTH });
  if (labelError) throw new DomainError('validation_failed', 'The label is too long.', { errors: [labelError] });
  return db.transaction().execute(async (trx) => {
    if (input.userId) await requireActingUser(trx, { userId: input.userId, partnerId: input.partnerId }, 'keys');
    if (input.environment !== 'sandbox') {
      const agreement = await repo.findAgreement(trx, input.partnerId);
      if (agreement?.status !== 'signed') {
        throw new DomainError(
          'agreement_not_signed',
          `${input.environment} keys need a signed agreement with the insurer; sandbox keys do not.`,
        );
      }
    }
    const plaintext = input.plaintext ?? KEY_PREFIXES[input.environment] + randomToken(24);
    const key = await repo.insertApiKey(trx, {
      partnerId: input.partnerId,
      environment: input.environment,
      keyHash: hashApiKey(plaintext),
      display: display(plaintext),
      // a label is free text: kept with the personal data it may quote masked, like every other
      label: input.label === undefined ? null : maskPersonalDataIn(input.label),
    });
    await audit(trx, {
      actor,
      partnerId: input.partnerId,
      environment: input.environment,
      entity: 'api_key',
      entityId: key.id,
      action: 'created',
      data: { display: key.display, label: key.label },
    });
    return { key, plaintext };
  });
}

/** Revokes a key of the partner; `userId` as for `createApiKey` (a partner user's, checked again). */
export async function revokeApiKey(
  db: Db,
  actor: string,
  partnerId: string,
  keyId: string,
  userId?: string,
): Promise<ApiKeyInfo> {
  return db.transaction().execute(async (trx) => {
    if (!UUID.test(keyId)) throw new DomainError('api_key_not_found', `No API key ${keyId} for this partner.`);
    if (userId) await requireActingUser(trx, { userId, partnerId }, 'keys');
    const before = (await repo.listApiKeys(trx, partnerId)).find((k) => k.id === keyId.toLowerCase());
    if (!before) throw new DomainError('api_key_not_found', `No API key ${keyId} for this partner.`);
    if (before.revokedAt) return before;
    const key = await repo.markApiKeyRevoked(trx, partnerId, before.id);
    // revoked by another transaction since it was read (two operators, the console and the CLI): that
    // one wrote the revocation and its audit row; this one answers the key as it is, writing nothing
    if (!key) return (await repo.listApiKeys(trx, partnerId)).find((k) => k.id === before.id)!;
    await audit(trx, {
      actor,
      partnerId,
      environment: key.environment,
      entity: 'api_key',
      entityId: key.id,
      action: 'revoked',
    });
    return key;
  });
}
