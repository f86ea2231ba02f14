import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Keys and primitives. One 32-byte master key (PARASOL_MASTER_KEY, or a 0600 key file created in the
 * data dir on first start) from which purpose-specific keys derive with HKDF, so rotating or
 * leaking one derived use never exposes another.
 *
 * Master key rotation (docs/OPERATIONS.md): the current master key encrypts; earlier ones
 * (PARASOL_MASTER_KEYS_PREVIOUS, or the key file's later lines) only decrypt. Every sealed value
 * names the key that sealed it (`v2.<key id>.…`), so `parasol master-key rotate` finds the rows
 * still under an earlier key and re-seals them (platform/key-rotation.ts).
 */
export interface Keyring {
  /** AES-256-GCM keys for personal data at rest (names, email, phone, address, birth date, IBAN, replays). */
  readonly encryption: EncryptionKeys;
  /** HMAC-SHA256 key signing quote references (from the current master key). */
  readonly quoteSigning: Buffer;
  /**
   * HMAC-SHA256 key naming what people type, and the addresses they come from, without storing
   * them: the sign-in and password-reset counters of an email address or a client IP address, and
   * the client address of the audit trail (platform/client-address.ts). From the current master
   * key: a rotation restarts the counters and starts new address hashes.
   */
  readonly lookup: Buffer;
}

/** A derived encryption key and its id (8 base64url characters derived from its master key). */
export interface EncryptionKey {
  readonly id: string;
  readonly key: Buffer;
  /**
   * HMAC-SHA256 key of the sealed values found by exact match (`lookupHash`), derived from the same
   * master key: it comes and goes with the encryption key, so a rotation re-hashes what it re-seals.
   */
  readonly lookup: Buffer;
}

/**
 * The encryption keys of a keyring: seals with the current one, opens with any known one. `add`
 * makes a new key current in place (the embedded server's `master-key add`), the others still open.
 */
export class EncryptionKeys {
  #current: EncryptionKey;
  #all: EncryptionKey[];

  constructor(current: EncryptionKey, previous: readonly EncryptionKey[] = []) {
    this.#current = current;
    this.#all = [current, ...previous.filter((k) => k.id !== current.id)];
  }

  get current(): EncryptionKey {
    return this.#current;
  }

  /** Every key that opens, the current one first. */
  get all(): readonly EncryptionKey[] {
    return this.#all;
  }

  /** Makes `key` the current key; the former ones keep opening what they sealed. */
  add(key: EncryptionKey): void {
    this.#current = key;
    this.#all = [key, ...this.#all.filter((k) => k.id !== key.id)];
  }

  find(id: string): EncryptionKey | undefined {
    return this.#all.find((k) => k.id === id);
  }
}

/** The master key file's path in a data directory. */
export function masterKeyFile(dataDir: string): string {
  return path.join(dataDir, 'master.key');
}

/**
 * The master keys: the configured one (PARASOL_MASTER_KEY) and its predecessors, or else the data
 * dir's key file (created on first start): one base64 key per line, the first current.
 */
export function loadMasterKeys(
  configured: Buffer | undefined,
  previous: readonly Buffer[],
  dataDir: string,
): { current: Buffer; previous: Buffer[] } {
  if (configured) return { current: configured, previous: [...previous] };
  const file = masterKeyFile(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const keys = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => Buffer.from(line, 'base64'));
  if (keys.length === 0 || keys.some((key) => key.length !== 32))
    throw new Error(`${file} does not hold 32-byte base64 keys, one a line`);
  return { current: keys[0]!, previous: [...keys.slice(1), ...previous] };
}

/** The current master key (see loadMasterKeys). */
export function loadMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  return loadMasterKeys(configured, [], dataDir).current;
}

/** The keyring of a configuration: its master keys loaded (or the key file created) and derived. */
export function openKeyring(config: {
  masterKey: Buffer | undefined;
  previousMasterKeys?: readonly Buffer[];
  dataDir: string;
}): Keyring {
  const keys = loadMasterKeys(config.masterKey, config.previousMasterKeys ?? [], config.dataDir);
  return deriveKeyring(keys.current, keys.previous);
}

export function deriveKeyring(masterKey: Buffer, previousMasterKeys: readonly Buffer[] = []): Keyring {
  const derive = (key: Buffer, info: string) =>
    Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), `parasol/${info}`, 32));
  return Object.freeze({
    encryption: new EncryptionKeys(deriveEncryptionKey(masterKey), previousMasterKeys.map(deriveEncryptionKey)),
    quoteSigning: derive(masterKey, 'quote-signing/v1'),
    lookup: derive(masterKey, 'lookup/v1'),
  });
}

/** The encryption key derived from a master key, with its id. */
export function deriveEncryptionKey(masterKey: Buffer): EncryptionKey {
  const derive = (info: string) =>
    Buffer.from(crypto.hkdfSync('sha256', masterKey, Buffer.alloc(0), `parasol/${info}`, 32));
  return {
    id: derive('key-id/v1').subarray(0, 6).toString('base64url'),
    key: derive('encryption/v1'),
    lookup: derive('sealed-lookup/v1'),
  };
}

/** A bare key (tests, old callers) is a key set of one. */
function keySet(keys: EncryptionKeys | Buffer): EncryptionKeys {
  if (!Buffer.isBuffer(keys)) return keys;
  return new EncryptionKeys({
    id: crypto.hash('sha256', keys, 'buffer').subarray(0, 6).toString('base64url'),
    key: keys,
    lookup: Buffer.from(crypto.hkdfSync('sha256', keys, Buffer.alloc(0), 'parasol/sealed-lookup/v1', 32)),
  });
}

/**
 * `v2.<key id>.<iv>.<ciphertext+tag>` in base64url, sealed with the current key. (`v1.<iv>.<…>`,
 * written before key rotation existed, names no key: any known key is tried.)
 */
export function encrypt(keys: EncryptionKeys | Buffer, plaintext: string): string {
  const { id, key } = keySet(keys).current;
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v2.${id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function decrypt(keys: EncryptionKeys | Buffer, sealed: string): string {
  const set = keySet(keys);
  const parts = sealed.split('.');
  if (parts[0] === 'v2' && parts.length === 4) {
    const key = set.find(parts[1]!) ?? (Buffer.isBuffer(keys) ? set.current : undefined);
    if (!key)
      throw new Error(`Sealed with an unknown master key (id ${parts[1]}): add it to PARASOL_MASTER_KEYS_PREVIOUS`);
    return open(key.key, parts[2]!, parts[3]!);
  }
  if (parts[0] === 'v1' && parts.length === 3) {
    let failure: unknown;
    for (const key of set.all) {
      try {
        return open(key.key, parts[1]!, parts[2]!);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
  throw new Error('Unknown ciphertext format');
}

/** The id of the key that sealed a value (undefined for the older `v1` format, which names none). */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split('.');
  return parts[0] === 'v2' && parts.length === 4 ? parts[1] : undefined;
}

function open(key: Buffer, ivText: string, bodyText: string): string {
  if (!ivText || !bodyText) throw new Error('Unknown ciphertext format');
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
}

/**
 * A personal-data field: its sealed column opened, or the plaintext of a row written before the
 * field was encrypted and not sealed yet (migration 0010, platform/seal-personal-data.ts).
 */
export function openField(key: EncryptionKeys | Buffer, sealed: string | null, plain: string | null): string {
  if (sealed !== null) return decrypt(key, sealed);
  if (plain !== null) return plain;
  throw new Error('A personal-data field has neither its sealed nor its plaintext value');
}

/**
 * The webhook events whose payload carries personal data (contract.created: the booking reference),
 * stored sealed in webhook_events.payload_enc rather than in clear (migration 0056). Here, not in the
 * webhooks domain, because the start-up sealing (platform/seal-personal-data.ts) seals the older rows.
 */
export const SEALED_WEBHOOK_EVENT_TYPES: readonly string[] = ['contract.created'];

/** The purpose of a contract's booking reference hash (`lookupHash`; column contracts.booking_reference_hmac). */
export const BOOKING_REFERENCE_LOOKUP = 'booking-reference';

/**
 * The keyed hash a sealed value is found by (exact match, e.g. a contract's booking reference): the
 * HMAC-SHA256 of `purpose:value` under the current key's lookup key, base64url. Stored next to the
 * sealed value and written with it, so both name the same master key; never a plain hash, which a
 * short guessable value (a 6-character booking reference) would not survive.
 */
export function lookupHash(keys: EncryptionKeys | Buffer, purpose: string, value: string): string {
  return hmac(keySet(keys).current.lookup, `${purpose}:${value}`).toString('base64url');
}

/**
 * The hashes `value` may be stored under: one per known key, the current first. During a master key
 * rotation a row not re-sealed yet still holds the earlier key's hash; a search matches any of them.
 */
export function lookupHashes(keys: EncryptionKeys | Buffer, purpose: string, value: string): string[] {
  return keySet(keys).all.map((k) => hmac(k.lookup, `${purpose}:${value}`).toString('base64url'));
}

export function hmac(key: Buffer, data: string): Buffer {
  return crypto.createHmac('sha256', key).update(data).digest();
}

/** One-shot SHA-256 (crypto.hash: no Hash object, half the cost of createHash on the hot path). */
export function sha256Hex(data: string): string {
  return crypto.hash('sha256', data, 'hex');
}

export function randomToken(bytes: number): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

// Passwords: scrypt (memory-hard, in node:crypto) with N=2^15, r=8, p=1 — about 32 MiB per hash.
const SCRYPT = { N: 32768, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64url');
  const actual = await scrypt(password, Buffer.from(saltText, 'base64url'));
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

function scrypt(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    crypto.scrypt(
      password,
      salt,
      SCRYPT.keylen,
      { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}
