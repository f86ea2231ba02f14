import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Keys and primitives. One 32-byte master key (PARASOL_MASTER_KEY, or a 0600 key file created in the
 * data dir on first start) from which purpose-specific keys derive with HKDF, so rotating or
 * leaking one derived use never exposes another.
 */
export interface Keyring {
  /** AES-256-GCM key for personal data at rest (names, email, phone, address, birth date, IBAN, replays). */
  readonly encryption: Buffer;
  /** HMAC-SHA256 key signing quote references. */
  readonly quoteSigning: Buffer;
}

export function loadMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, 'master.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

export function deriveKeyring(masterKey: Buffer): Keyring {
  const derive = (info: string) => Buffer.from(crypto.hkdfSync('sha256', masterKey, Buffer.alloc(0), `parasol/${info}`, 32));
  return Object.freeze({ encryption: derive('encryption/v1'), quoteSigning: derive('quote-signing/v1') });
}

/** `v1.<iv>.<ciphertext+tag>` in base64url; the version lets a later key rotation coexist. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function decrypt(key: Buffer, sealed: string): string {
  const [version, ivText, bodyText] = sealed.split('.');
  if (version !== 'v1' || !ivText || !bodyText) throw new Error('Unknown ciphertext format');
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
}

/**
 * A personal-data field: its sealed column opened, or the plaintext of a row written before the
 * field was encrypted and not sealed yet (migration 0010, platform/seal-personal-data.ts).
 */
export function openField(key: Buffer, sealed: string | null, plain: string | null): string {
  if (sealed !== null) return decrypt(key, sealed);
  if (plain !== null) return plain;
  throw new Error('A personal-data field has neither its sealed nor its plaintext value');
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
    crypto.scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}
