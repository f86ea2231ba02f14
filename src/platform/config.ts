import path from 'node:path';
import { isSEPACountry, isValidBIC, isValidIBAN } from 'ibantools';
import { bicMatchesCountry } from './bic.ts';
import { hasHiddenCharacter } from './hidden-characters.ts';
import { isSepaAddressLine, isCountryCode } from './latin-text.ts';
import { currencyError } from './money.ts';
import { abaChecksumValid } from './routing-number.ts';

/**
 * The one place that reads the environment. Everything else receives a `Config`.
 * Values are validated once, at start, and a bad value fails with a message naming the variable.
 */

/** The operator socket's handshake deadline when PARASOL_OPERATOR_HANDSHAKE_SECONDS is unset (operator-socket.ts). */
export const DEFAULT_OPERATOR_HANDSHAKE_SECONDS = 30;
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL connection string; undefined means the embedded PGlite database under dataDir. */
  readonly databaseUrl: string | undefined;
  /** Base URL for links sent to customers (SMS), without trailing slash. */
  readonly publicUrl: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** 32-byte master key (base64) from which encryption and signing keys derive; undefined = key file in dataDir. */
  readonly masterKey: Buffer | undefined;
  /** Earlier master keys (PARASOL_MASTER_KEYS_PREVIOUS): they open what they sealed, never seal (docs/OPERATIONS.md, key rotation). */
  readonly previousMasterKeys: readonly Buffer[];
  readonly demo: {
    readonly apiKey: string | undefined;
    readonly email: string | undefined;
    readonly password: string | undefined;
  };
  /** The operator seeded at start for the operator console (/admin), when both are set. */
  readonly admin: {
    readonly email: string | undefined;
    readonly password: string | undefined;
  };
  /**
   * Requests per minute allowed for one API key, per operation class (platform/shared-rate-limit.ts):
   * PARASOL_RATE_LIMIT_{QUOTE,WRITE,READ}_PER_MINUTE; PARASOL_RATE_LIMIT_PER_MINUTE, when set, is the
   * default of each class not set on its own. The operator may set other limits for a partner.
   */
  readonly rateLimits: { readonly quote: number; readonly write: number; readonly read: number };
  /**
   * How long an API process caches keys, partner terms and webhook endpoints (PARASOL_CACHE_TTL_SECONDS, default 5):
   * the fallback when a change notification is lost; changes normally arrive within a second.
   */
  readonly cacheTtlSeconds: number;
  /** Redis (REDIS_URL): rate limits shared by every process; absent = counted per process. */
  readonly redisUrl: string | undefined;
  /** Failed API-key authentications per minute allowed from one client address (then 429). */
  readonly authFailuresPerMinute: number;
  /** How long a quote stays valid, in minutes (never beyond departure minus the safety margin). */
  readonly quoteTtlMinutes: number;
  /** The cap per flight where the operator set none, in the currency's major unit (docs/limits.md). */
  readonly flightCapDefault: number;
  /** Whether this API process also runs the job workers (the embedded default does; at scale, `npm run worker`). */
  readonly runWorkers: boolean;
  /** Seconds between polls of the job queue. */
  readonly jobPollSeconds: number;
  /**
   * How long a client of the operator socket (the CLI while the server holds the embedded database)
   * has to prove it knows the operator secret before the server closes the connection
   * (PARASOL_OPERATOR_HANDSHAKE_SECONDS, default 30; platform/operator-socket.ts).
   */
  readonly operatorHandshakeSeconds: number;
  /** Days a customer has to give bank details before the claim expires. */
  readonly bankDetailsDays: number;
  /** Days before that due date a claim still waiting is reminded by SMS, with a new link; 0: no reminders; less than bankDetailsDays. */
  readonly bankDetailsReminderDays: number;
  /** PARASOL_SMS_QUIET_HOURS: the customer's local hours when a reminder or an expiry notice waits (notify/sms/quiet-hours.ts); null: off. */
  readonly smsQuietHours: QuietHours | null;
  /** Production SMS through Twilio; undefined: production messages are kept queued (sent once it is set). */
  readonly twilio: TwilioConfig | undefined;
  /**
   * Email through SMTP (PARASOL_SMTP_*); undefined: the platform's own emails (partner users'
   * invitations and resets) are kept in the outbox (the operator console's Emails page, `parasol
   * emails list`), never sent, and production customers' emails stay queued until it is set.
   */
  readonly smtp: SmtpConfig | undefined;
  /** Behind a reverse proxy (TLS terminator): client addresses from X-Forwarded-For (sign-in throttling, logs). */
  readonly trustProxy: boolean;
  /** Where credit transfer files (SEPA and cross-border) are written. */
  readonly payoutsDir: string;
  /**
   * The insurer's account paying the claims (batches); undefined: batches are refused. `accounts`: its
   * accounts for other currencies than EUR (PARASOL_SEPA_DEBTOR_ACCOUNTS); a currency without one is
   * paid from the EUR account.
   */
  readonly sepaDebtor:
    | {
        readonly name: string;
        readonly iban: string;
        readonly bic: string;
        /**
         * The insurer's postal address (PARASOL_SEPA_DEBTOR_ADDRESS, `FR:line 1|line 2`): its country
         * and one or two lines. Written in every pain.001 (Dbtr/PstlAdr); a transfer to a bank outside
         * the EEA needs it.
         */
        readonly address?: { readonly country: string; readonly lines: readonly string[] } | undefined;
        readonly accounts: Readonly<Record<string, { readonly iban: string; readonly bic: string }>>;
      }
    | undefined;
  /**
   * The insurer as an ACH originator (PARASOL_ACH_*), for NACHA files paying US accounts (USD claims);
   * undefined: pending ACH payouts wait, reported by each batch.
   */
  readonly achOriginator: AchOriginatorConfig | undefined;
  /**
   * Federal Reserve business days after an ACH file's effective entry date before its payouts, not
   * returned, are taken as paid (PARASOL_ACH_RETURN_WINDOW_DAYS, default 2: most returns come within
   * two banking days; a later return still turns a paid payout returned). payouts/settle-ach.ts.
   */
  readonly achReturnWindowDays: number;
  /**
   * When the worker gathers the pending production payouts into a SEPA file (PARASOL_SEPA_BATCH_SCHEDULE,
   * cron in UTC, default every hour on weekdays); undefined (`off`): only `parasol payouts batch` does.
   */
  readonly sepaBatchSchedule: string | undefined;
  /** The bank's cut-off for same-day execution, Central European Time (PARASOL_SEPA_CUTOFF, default 14:00). */
  readonly sepaCutOff: { readonly hour: number; readonly minute: number };
  /** Whether webhook URLs may be plain http and reach loopback/private addresses (development only). */
  readonly webhooksAllowPrivate: boolean;
  /**
   * An endpoint with no successful attempt for `days` days and at least `attempts` failed ones in
   * that time is paused, reason failing (webhooks/pause-failing.ts): PARASOL_WEBHOOKS_PAUSE_FAILING_DAYS
   * (default 5, 1 to 60) and PARASOL_WEBHOOKS_PAUSE_FAILING_ATTEMPTS (default 20, 1 to 100000).
   */
  readonly webhooksPauseFailing: { readonly days: number; readonly attempts: number };
  /**
   * Production's flight-status provider (sandbox and preproduction always use the simulator);
   * undefined: production watches are kept and retried with a logged warning.
   */
  readonly flightProvider: FlightProviderConfig | undefined;
  /**
   * A separate listener serving GET /metrics without authentication (on HOST), for API and worker
   * processes; undefined: only the API's /metrics, behind an operator token.
   */
  readonly metricsPort: number | undefined;
  /** Who insures the customers: named in every SMS, email and the bank-details page's footer and legal pages. */
  readonly insurer: Insurer;
}

/**
 * The insurer's identity (PARASOL_INSURER_*, docs/OPERATIONS.md); the defaults are a demo insurer's,
 * to be replaced in production.
 */
export interface Insurer {
  /** Legal name, e.g. "Parasol Assurances SA". */
  readonly legalName: string;
  /** The short name an SMS uses, e.g. "Parasol". */
  readonly shortName: string;
  readonly address: string;
  /** Registration number(s), e.g. "RCS Paris 000 000 000". */
  readonly registration: string;
  /** The supervising authority, e.g. "ACPR, 4 place de Budapest, 75009 Paris". */
  readonly regulator: string;
  readonly email: string;
  readonly phone: string;
  /** The privacy (data protection) contact. */
  readonly privacyEmail: string;
}

export const DEMO_INSURER: Insurer = Object.freeze({
  legalName: 'Parasol Assurances SA (demo)',
  shortName: 'Parasol',
  address: '1 rue de la Démonstration, 75001 Paris, France',
  registration: 'RCS Paris 000 000 000 (demo)',
  regulator: 'ACPR, 4 place de Budapest, 75009 Paris, France',
  email: 'contact@parasol.example',
  phone: '+33 1 00 00 00 00',
  privacyEmail: 'privacy@parasol.example',
});

function insurerConfig(env: Env): Insurer {
  const text = (name: string, fallback: string, max: number) => {
    const value = optional(env, name) ?? fallback;
    // printed on every SMS, letter and PDF: the rule of typed text (hidden-characters.ts, as a brand name)
    if (value.length > max || hasHiddenCharacter(value))
      throw new ConfigError(name, `must be at most ${max} characters, without control or invisible characters`);
    return value;
  };
  const email = (name: string, fallback: string) => {
    const value = text(name, fallback, 254);
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value))
      throw new ConfigError(name, `must be an email address, got "${value}"`);
    return value;
  };
  return Object.freeze({
    legalName: text('PARASOL_INSURER_NAME', DEMO_INSURER.legalName, 120),
    shortName: text('PARASOL_INSURER_SHORT_NAME', DEMO_INSURER.shortName, 20),
    address: text('PARASOL_INSURER_ADDRESS', DEMO_INSURER.address, 200),
    registration: text('PARASOL_INSURER_REGISTRATION', DEMO_INSURER.registration, 200),
    regulator: text('PARASOL_INSURER_REGULATOR', DEMO_INSURER.regulator, 200),
    email: email('PARASOL_INSURER_EMAIL', DEMO_INSURER.email),
    phone: text('PARASOL_INSURER_PHONE', DEMO_INSURER.phone, 40),
    privacyEmail: email('PARASOL_INSURER_PRIVACY_EMAIL', DEMO_INSURER.privacyEmail),
  });
}

/** Base URLs undefined mean the provider's real endpoint (the adapters' defaults). */
export type FlightProviderConfig =
  | { readonly kind: 'flightaware'; readonly apiKey: string; readonly baseUrl: string | undefined }
  | {
      readonly kind: 'flightstats';
      readonly appId: string;
      readonly appKey: string;
      readonly baseUrl: string | undefined;
    };

export interface TwilioConfig {
  readonly accountSid: string;
  readonly authToken: string;
  readonly from: string | undefined;
  readonly messagingServiceSid: string | undefined;
  readonly baseUrl: string | undefined;
  /**
   * Where Twilio posts each message's delivery status (docs/sms.md, "Delivery receipts"):
   * `<PARASOL_PUBLIC_URL>/providers/twilio/sms-status` when that URL is https (Twilio calls public
   * https addresses only), else none and no delivery receipts.
   */
  readonly statusCallbackUrl: string | undefined;
}

/** The path of Twilio's status callback under the public URL. */
export const TWILIO_STATUS_PATH = '/providers/twilio/sms-status';

export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  /** TLS from the connection's start (port 465); false: STARTTLS when offered. */
  readonly secure: boolean;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** The sender of every email, e.g. `Parasol <no-reply@parasol.example>`. */
  readonly from: string;
}

/** PARASOL_SMS_QUIET_HOURS: from `from` o'clock to `to` o'clock (the next morning when from > to), local. */
export interface QuietHours {
  readonly from: number;
  readonly to: number;
}

/** "21-8" → { from: 21, to: 8 }; "off" → null. Throws a RangeError naming the rule. */
export function parseQuietHours(text: string): QuietHours | null {
  if (text.trim().toLowerCase() === 'off') return null;
  const match = /^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$/.exec(text);
  const from = Number(match?.[1]);
  const to = Number(match?.[2]);
  if (!match || from > 23 || to > 23 || from === to)
    throw new RangeError(`must be "<from>-<to>" in whole hours 0-23, two different hours (e.g. 21-8), or off`);
  return { from, to };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** Defaults per minute and key: quotes 6,000 (100/s), writes 1,200 (20/s), reads 1,200 (docs/OPERATIONS.md). */
export const DEFAULT_RATE_LIMITS = { quote: 6_000, write: 1_200, read: 1_200 } as const;

function rateLimitsOf(env: Env): Config['rateLimits'] {
  const all =
    optional(env, 'PARASOL_RATE_LIMIT_PER_MINUTE') === undefined
      ? undefined
      : integer(env, 'PARASOL_RATE_LIMIT_PER_MINUTE', 0, 1, 10_000_000);
  return Object.freeze({
    quote: integer(env, 'PARASOL_RATE_LIMIT_QUOTE_PER_MINUTE', all ?? DEFAULT_RATE_LIMITS.quote, 1, 10_000_000),
    write: integer(env, 'PARASOL_RATE_LIMIT_WRITE_PER_MINUTE', all ?? DEFAULT_RATE_LIMITS.write, 1, 10_000_000),
    read: integer(env, 'PARASOL_RATE_LIMIT_READ_PER_MINUTE', all ?? DEFAULT_RATE_LIMITS.read, 1, 10_000_000),
  });
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be on or off, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // not repeated: a database or Redis URL that does not parse often holds a password (with a `/`, `@`
    // or `#` in it), and this message goes to the logs
    throw new ConfigError(
      name,
      'must be a URL (the value is not shown: it may hold a password; percent-encode any /, @, #, ? or % in the user name and password)',
    );
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** A demo API key is any string of 24 or more URL-safe characters. */
export const DEMO_API_KEY_PATTERN = /^[A-Za-z0-9_-]{24,}$/;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  const dataDir = path.resolve(optional(env, 'PARASOL_DATA_DIR') ?? './data');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const publicUrl = (url(env, 'PARASOL_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(
    /\/+$/,
    '',
  );

  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const masterKeyRaw = optional(env, 'PARASOL_MASTER_KEY');
  let masterKey: Buffer | undefined;
  if (masterKeyRaw !== undefined) {
    masterKey = Buffer.from(masterKeyRaw, 'base64');
    if (masterKey.length !== 32)
      throw new ConfigError('PARASOL_MASTER_KEY', 'must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  }
  const previousMasterKeys = (optional(env, 'PARASOL_MASTER_KEYS_PREVIOUS') ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .map((text) => {
      const key = Buffer.from(text, 'base64');
      if (key.length !== 32)
        throw new ConfigError('PARASOL_MASTER_KEYS_PREVIOUS', 'must be comma-separated 32-byte keys encoded in base64');
      return key;
    });
  if (previousMasterKeys.length > 0 && masterKey === undefined)
    throw new ConfigError(
      'PARASOL_MASTER_KEYS_PREVIOUS',
      'needs PARASOL_MASTER_KEY (the current key); with the key file, list earlier keys on its later lines',
    );

  const apiKey = optional(env, 'PARASOL_DEMO_API_KEY');
  if (apiKey !== undefined && !DEMO_API_KEY_PATTERN.test(apiKey)) {
    throw new ConfigError('PARASOL_DEMO_API_KEY', 'must be 24 or more URL-safe characters (A-Z a-z 0-9 _ -)');
  }
  const email = optional(env, 'PARASOL_DEMO_EMAIL');
  if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    throw new ConfigError('PARASOL_DEMO_EMAIL', `must be an email address, got "${email}"`);
  }
  const password = optional(env, 'PARASOL_DEMO_PASSWORD');
  if (password !== undefined && password.length < 10) {
    throw new ConfigError('PARASOL_DEMO_PASSWORD', 'must be at least 10 characters');
  }
  if ((email === undefined) !== (password === undefined)) {
    throw new ConfigError(
      email === undefined ? 'PARASOL_DEMO_EMAIL' : 'PARASOL_DEMO_PASSWORD',
      'must be set together with its pair (PARASOL_DEMO_EMAIL and PARASOL_DEMO_PASSWORD)',
    );
  }

  const adminEmail = optional(env, 'PARASOL_ADMIN_EMAIL');
  if (adminEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(adminEmail)) {
    throw new ConfigError('PARASOL_ADMIN_EMAIL', `must be an email address, got "${adminEmail}"`);
  }
  const adminPassword = optional(env, 'PARASOL_ADMIN_PASSWORD');
  if (adminPassword !== undefined && adminPassword.length < 12) {
    throw new ConfigError('PARASOL_ADMIN_PASSWORD', 'must be at least 12 characters');
  }
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    throw new ConfigError(
      adminEmail === undefined ? 'PARASOL_ADMIN_EMAIL' : 'PARASOL_ADMIN_PASSWORD',
      'must be set together with its pair (PARASOL_ADMIN_EMAIL and PARASOL_ADMIN_PASSWORD)',
    );
  }

  const metricsPort =
    optional(env, 'PARASOL_METRICS_PORT') === undefined ? undefined : integer(env, 'PARASOL_METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== undefined && metricsPort === port)
    throw new ConfigError(
      'PARASOL_METRICS_PORT',
      `must differ from PORT (${port}): it opens a second, unauthenticated listener`,
    );

  const bankDetailsDays = integer(env, 'PARASOL_BANK_DETAILS_DAYS', 30, 1, 365);
  const bankDetailsReminderDays = integer(env, 'PARASOL_BANK_DETAILS_REMINDER_DAYS', 3, 0, 365);
  let smsQuietHours: QuietHours | null;
  try {
    smsQuietHours = parseQuietHours(optional(env, 'PARASOL_SMS_QUIET_HOURS') ?? '21-8');
  } catch (error) {
    throw new ConfigError('PARASOL_SMS_QUIET_HOURS', (error as Error).message);
  }
  // a window as long as the due period takes every claim at once: the reminder would go out with the
  // first message, and never shortly before the expiry it is meant to prevent
  if (bankDetailsReminderDays > 0 && bankDetailsReminderDays >= bankDetailsDays)
    throw new ConfigError(
      'PARASOL_BANK_DETAILS_REMINDER_DAYS',
      `must be less than PARASOL_BANK_DETAILS_DAYS (${bankDetailsDays}), got ${bankDetailsReminderDays}; 0 turns reminders off`,
    );

  const twilio = twilioConfig(env, publicUrl);
  const smtp = smtpConfig(env);
  const flightProvider = flightProviderConfig(env);
  const sepaDebtor = sepaDebtorConfig(env);

  return Object.freeze({
    port,
    host,
    dataDir,
    databaseUrl,
    publicUrl,
    logLevel: logLevel as Config['logLevel'],
    masterKey,
    previousMasterKeys,
    demo: Object.freeze({ apiKey, email, password }),
    admin: Object.freeze({ email: adminEmail, password: adminPassword }),
    rateLimits: rateLimitsOf(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    cacheTtlSeconds: integer(env, 'PARASOL_CACHE_TTL_SECONDS', 5, 0, 3600),
    authFailuresPerMinute: integer(env, 'PARASOL_AUTH_FAILURES_PER_MINUTE', 30, 1, 10_000_000),
    quoteTtlMinutes: integer(env, 'PARASOL_QUOTE_TTL_MINUTES', 24 * 60, 1, 7 * 24 * 60),
    flightCapDefault: integer(env, 'PARASOL_FLIGHT_CAP_DEFAULT', 100_000, 1, 1_000_000_000),
    runWorkers: boolean(env, 'PARASOL_WORKERS', true),
    jobPollSeconds: integer(env, 'PARASOL_JOB_POLL_SECONDS', 2, 1, 60),
    operatorHandshakeSeconds: integer(
      env,
      'PARASOL_OPERATOR_HANDSHAKE_SECONDS',
      DEFAULT_OPERATOR_HANDSHAKE_SECONDS,
      1,
      600,
    ),
    bankDetailsDays,
    bankDetailsReminderDays,
    smsQuietHours,
    twilio,
    smtp,
    trustProxy: boolean(env, 'PARASOL_TRUST_PROXY', false),
    payoutsDir: path.resolve(optional(env, 'PARASOL_PAYOUTS_DIR') ?? path.join(dataDir, 'payouts')),
    sepaDebtor,
    achOriginator: achOriginatorConfig(env),
    achReturnWindowDays: integer(env, 'PARASOL_ACH_RETURN_WINDOW_DAYS', 2, 1, 60),
    sepaBatchSchedule: sepaBatchScheduleConfig(env),
    sepaCutOff: sepaCutOffConfig(env),
    webhooksAllowPrivate: boolean(env, 'PARASOL_WEBHOOKS_ALLOW_PRIVATE', false),
    webhooksPauseFailing: {
      days: integer(env, 'PARASOL_WEBHOOKS_PAUSE_FAILING_DAYS', 5, 1, 60),
      attempts: integer(env, 'PARASOL_WEBHOOKS_PAUSE_FAILING_ATTEMPTS', 20, 1, 100_000),
    },
    flightProvider,
    metricsPort,
    insurer: insurerConfig(env),
  });
}

function flightProviderConfig(env: Env): FlightProviderConfig | undefined {
  const kind = optional(env, 'PARASOL_FLIGHT_PROVIDER')?.toLowerCase();
  const required = (name: string) => {
    const value = optional(env, name);
    if (value === undefined) throw new ConfigError(name, `is required when PARASOL_FLIGHT_PROVIDER=${kind}`);
    return value;
  };
  switch (kind) {
    case undefined:
      return undefined;
    case 'flightaware':
      return Object.freeze({
        kind,
        apiKey: required('PARASOL_FLIGHTAWARE_API_KEY'),
        baseUrl: url(env, 'PARASOL_FLIGHTAWARE_URL', ['https:', 'http:'])?.replace(/\/+$/, ''),
      });
    case 'flightstats':
      return Object.freeze({
        kind,
        appId: required('PARASOL_FLIGHTSTATS_APP_ID'),
        appKey: required('PARASOL_FLIGHTSTATS_APP_KEY'),
        baseUrl: url(env, 'PARASOL_FLIGHTSTATS_URL', ['https:', 'http:'])?.replace(/\/+$/, ''),
      });
    default:
      throw new ConfigError('PARASOL_FLIGHT_PROVIDER', `must be flightaware or flightstats, got "${kind}"`);
  }
}

function twilioConfig(env: Env, publicUrl: string): TwilioConfig | undefined {
  const accountSid = optional(env, 'PARASOL_TWILIO_ACCOUNT_SID');
  const authToken = optional(env, 'PARASOL_TWILIO_AUTH_TOKEN');
  const from = optional(env, 'PARASOL_TWILIO_FROM');
  const messagingServiceSid = optional(env, 'PARASOL_TWILIO_MESSAGING_SERVICE_SID');
  const baseUrl = url(env, 'PARASOL_TWILIO_URL', ['https:', 'http:']);
  if (accountSid === undefined && authToken === undefined && from === undefined && messagingServiceSid === undefined)
    return undefined;
  if (accountSid === undefined || !/^AC[0-9a-fA-F]{32}$/.test(accountSid))
    throw new ConfigError('PARASOL_TWILIO_ACCOUNT_SID', 'must be "AC" followed by 32 hexadecimal digits');
  if (authToken === undefined)
    throw new ConfigError('PARASOL_TWILIO_AUTH_TOKEN', 'is required with PARASOL_TWILIO_ACCOUNT_SID');
  if ((from === undefined) === (messagingServiceSid === undefined)) {
    throw new ConfigError(
      'PARASOL_TWILIO_FROM',
      'or PARASOL_TWILIO_MESSAGING_SERVICE_SID must be set (exactly one of them)',
    );
  }
  if (messagingServiceSid !== undefined && !/^MG[0-9a-fA-F]{32}$/.test(messagingServiceSid)) {
    throw new ConfigError('PARASOL_TWILIO_MESSAGING_SERVICE_SID', 'must be "MG" followed by 32 hexadecimal digits');
  }
  const statusCallbackUrl = publicUrl.startsWith('https://') ? `${publicUrl}${TWILIO_STATUS_PATH}` : undefined;
  return Object.freeze({ accountSid, authToken, from, messagingServiceSid, baseUrl, statusCallbackUrl });
}

function smtpConfig(env: Env): SmtpConfig | undefined {
  const host = optional(env, 'PARASOL_SMTP_HOST');
  const names = [
    'PARASOL_SMTP_PORT',
    'PARASOL_SMTP_SECURE',
    'PARASOL_SMTP_USER',
    'PARASOL_SMTP_PASSWORD',
    'PARASOL_SMTP_FROM',
  ];
  if (host === undefined) {
    const stray = names.find((name) => optional(env, name) !== undefined);
    if (stray) throw new ConfigError('PARASOL_SMTP_HOST', `is required with ${stray}`);
    return undefined;
  }
  const secure = boolean(env, 'PARASOL_SMTP_SECURE', false);
  const port = integer(env, 'PARASOL_SMTP_PORT', secure ? 465 : 587, 1, 65535);
  const user = optional(env, 'PARASOL_SMTP_USER');
  const password = optional(env, 'PARASOL_SMTP_PASSWORD');
  if ((user === undefined) !== (password === undefined))
    throw new ConfigError(
      user === undefined ? 'PARASOL_SMTP_USER' : 'PARASOL_SMTP_PASSWORD',
      'must be set together with its pair',
    );
  const from = optional(env, 'PARASOL_SMTP_FROM');
  if (from === undefined || !/^([^<>]*<)?[^@\s<>]+@[^@\s<>]+>?$/.test(from))
    throw new ConfigError(
      'PARASOL_SMTP_FROM',
      'must be an email address, or "Name <address>", when PARASOL_SMTP_HOST is set',
    );
  return Object.freeze({ host, port, secure, user, password, from });
}

/** The insurer as an ACH originator: what its US bank (the ODFI) assigned it, for the NACHA file's headers. */
export interface AchOriginatorConfig {
  /** The bank receiving the files: its 9-digit routing number (PARASOL_ACH_IMMEDIATE_DESTINATION). */
  readonly immediateDestination: string;
  readonly immediateDestinationName: string;
  /**
   * 10 characters the bank assigns (PARASOL_ACH_IMMEDIATE_ORIGIN; default the company id); a 9-digit
   * routing number is given its leading blank.
   */
  readonly immediateOrigin: string;
  readonly immediateOriginName: string;
  /** ≤ 16 characters, on the customers' statements. */
  readonly companyName: string;
  /** 10 characters, usually 1 and the 9-digit EIN. */
  readonly companyId: string;
  /** The originating bank's routing number (PARASOL_ACH_ODFI_ROUTING; default the immediate destination). */
  readonly odfiRouting: string;
}

function achOriginatorConfig(env: Env): AchOriginatorConfig | undefined {
  const names = [
    'PARASOL_ACH_IMMEDIATE_DESTINATION',
    'PARASOL_ACH_IMMEDIATE_DESTINATION_NAME',
    'PARASOL_ACH_IMMEDIATE_ORIGIN',
    'PARASOL_ACH_IMMEDIATE_ORIGIN_NAME',
    'PARASOL_ACH_COMPANY_NAME',
    'PARASOL_ACH_COMPANY_ID',
    'PARASOL_ACH_ODFI_ROUTING',
  ] as const;
  const [destination, destinationName, origin, originName, companyName, companyId, odfi] = names.map((n) =>
    optional(env, n),
  );
  if (names.every((n) => optional(env, n) === undefined)) return undefined;
  const ascii = (name: string, value: string | undefined, max: number) => {
    if (value === undefined) throw new ConfigError(name, 'is required with the other PARASOL_ACH_* variables');
    if (!/^[\x20-\x7E]+$/.test(value) || value.trim().length === 0 || value.length > max)
      throw new ConfigError(name, `must be 1 to ${max} printable ASCII characters`);
    return value.trim();
  };
  if (destination === undefined || !abaChecksumValid(destination))
    throw new ConfigError(
      'PARASOL_ACH_IMMEDIATE_DESTINATION',
      'must be the 9-digit ABA routing number of the receiving bank',
    );
  if (companyId === undefined || !/^[0-9A-Za-z ]{10}$/.test(companyId))
    throw new ConfigError('PARASOL_ACH_COMPANY_ID', 'must be 10 characters (usually 1 and the 9-digit EIN)');
  // a routing number given as the origin (values are trimmed: its leading blank is lost) takes it back
  const immediateOrigin = origin !== undefined && /^[0-9]{9}$/.test(origin) ? ` ${origin}` : origin;
  if (immediateOrigin !== undefined && !/^[0-9A-Za-z ]{10}$/.test(immediateOrigin))
    throw new ConfigError(
      'PARASOL_ACH_IMMEDIATE_ORIGIN',
      'must be 10 characters as the bank assigned them, or a 9-digit routing number (the leading blank added)',
    );
  if (odfi !== undefined && !abaChecksumValid(odfi))
    throw new ConfigError('PARASOL_ACH_ODFI_ROUTING', 'must be the 9-digit ABA routing number of the originating bank');
  const company = ascii('PARASOL_ACH_COMPANY_NAME', companyName, 16);
  return Object.freeze({
    immediateDestination: destination,
    immediateDestinationName: ascii('PARASOL_ACH_IMMEDIATE_DESTINATION_NAME', destinationName, 23),
    immediateOrigin: immediateOrigin ?? companyId,
    immediateOriginName:
      originName === undefined ? company : ascii('PARASOL_ACH_IMMEDIATE_ORIGIN_NAME', originName, 23),
    companyName: company,
    companyId,
    odfiRouting: odfi ?? destination,
  });
}

function sepaDebtorConfig(env: Env): Config['sepaDebtor'] {
  const name = optional(env, 'PARASOL_SEPA_DEBTOR_NAME');
  const iban = optional(env, 'PARASOL_SEPA_DEBTOR_IBAN')?.replace(/\s+/g, '').toUpperCase();
  const bic = optional(env, 'PARASOL_SEPA_DEBTOR_BIC')?.toUpperCase();
  const accountsText = optional(env, 'PARASOL_SEPA_DEBTOR_ACCOUNTS');
  const addressText = optional(env, 'PARASOL_SEPA_DEBTOR_ADDRESS');
  if (
    name === undefined &&
    iban === undefined &&
    bic === undefined &&
    accountsText === undefined &&
    addressText === undefined
  )
    return undefined;
  if (name === undefined)
    throw new ConfigError('PARASOL_SEPA_DEBTOR_NAME', 'is required with the other PARASOL_SEPA_DEBTOR_* variables');
  if (iban === undefined || !isValidIBAN(iban) || !isSEPACountry(iban.slice(0, 2)))
    throw new ConfigError('PARASOL_SEPA_DEBTOR_IBAN', 'must be the IBAN of a SEPA account');
  if (bic === undefined || !isValidBIC(bic))
    throw new ConfigError('PARASOL_SEPA_DEBTOR_BIC', 'must be a valid BIC (8 or 11 characters)');
  if (!bicMatchesCountry(bic, iban.slice(0, 2)))
    throw new ConfigError(
      'PARASOL_SEPA_DEBTOR_BIC',
      `must be the BIC of a bank in the IBAN's country ${iban.slice(0, 2)} (got ${bic.slice(4, 6)})`,
    );
  const address = debtorAddressConfig(addressText);
  return Object.freeze({
    name,
    iban,
    bic,
    ...(address ? { address } : {}),
    accounts: debtorAccountsConfig(accountsText),
  });
}

/**
 * PARASOL_SEPA_DEBTOR_ADDRESS: the insurer's postal address as a pain.001 writes it, its country (ISO
 * 3166 alpha-2: the address's own, not the IBAN's — a French insurer may hold its account in
 * Luxembourg) then one or two lines separated by "|" ("FR:12 rue de la Paix|75002 Paris"), the
 * country and each line checked by the file builder's own rules (`isCountryCode`: an officially
 * assigned ISO 3166-1 alpha-2 code, any country, not only SEPA members — "UK", "EU" or "DD" refused;
 * `isSepaAddressLine`: no hidden character, 1 to 70 characters once in the SEPA Latin set), so that an
 * address taken at start never refuses every file.
 */
function debtorAddressConfig(text: string | undefined): { country: string; lines: readonly string[] } | undefined {
  if (text === undefined) return undefined;
  const refused = () =>
    new ConfigError(
      'PARASOL_SEPA_DEBTOR_ADDRESS',
      'must be an ISO 3166-1 alpha-2 country code ("FR", "GB", not "UK" nor "EU"), ":", then one or two address lines separated by "|" ("FR:1 place de la Bourse|75002 Paris"), each 1 to 70 characters of the SEPA Latin set (a-z A-Z 0-9 / - ? : ( ) . , \' +, accents dropped), without control or invisible characters',
    );
  const colon = text.indexOf(':');
  const country = text.slice(0, colon).trim().toUpperCase();
  if (colon < 0 || !isCountryCode(country)) throw refused();
  const lines = text
    .slice(colon + 1)
    .split('|')
    .map((line) => line.replace(/ +/g, ' ').trim());
  if (lines.length > 2 || !lines.every(isSepaAddressLine)) throw refused();
  return Object.freeze({ country, lines: Object.freeze(lines) });
}

/**
 * PARASOL_SEPA_DEBTOR_ACCOUNTS: the insurer's accounts for other currencies, space- or
 * comma-separated `CCY:IBAN:BIC` ("GBP:GB29NWBK60161331926819:NWBKGB2L CHF:CH93…:UBSWCHZH80A").
 * A currency not listed is paid from the EUR account (the bank converts).
 */
function debtorAccountsConfig(
  text: string | undefined,
): Readonly<Record<string, { readonly iban: string; readonly bic: string }>> {
  const accounts: Record<string, { readonly iban: string; readonly bic: string }> = {};
  for (const item of (text ?? '').split(/[\s,]+/).filter(Boolean)) {
    const [currency = '', rawIban = '', rawBic = '', ...rest] = item.split(':');
    const iban = rawIban.toUpperCase();
    const bic = rawBic.toUpperCase();
    const fail = (message: string) =>
      new ConfigError('PARASOL_SEPA_DEBTOR_ACCOUNTS', `"${currency}": ${message} (CCY:IBAN:BIC, separated by spaces)`);
    if (rest.length > 0) throw fail('each account must be CCY:IBAN:BIC');
    const refused = currencyError(currency, 'CCY');
    if (refused) throw fail(`the currency ${refused.message}`);
    if (currency === 'EUR') throw fail('the EUR account is PARASOL_SEPA_DEBTOR_IBAN and _BIC');
    if (accounts[currency]) throw fail('is listed twice');
    if (!isValidIBAN(iban) || !isSEPACountry(iban.slice(0, 2)))
      throw fail('the IBAN must be that of a SEPA-country account');
    if (!isValidBIC(bic)) throw fail('the BIC must be valid (8 or 11 characters)');
    if (!bicMatchesCountry(bic, iban.slice(0, 2)))
      throw fail(`the BIC must be that of a bank in the IBAN's country ${iban.slice(0, 2)} (got ${bic.slice(4, 6)})`);
    accounts[currency] = Object.freeze({ iban, bic });
  }
  return Object.freeze(accounts);
}

/** The default of PARASOL_SEPA_BATCH_SCHEDULE: at minute 0 of every hour, Monday to Friday (UTC). */
export const DEFAULT_SEPA_BATCH_SCHEDULE = '0 * * * 1-5';

function sepaBatchScheduleConfig(env: Env): string | undefined {
  const value = optional(env, 'PARASOL_SEPA_BATCH_SCHEDULE')?.trim().replace(/\s+/g, ' ');
  if (value === undefined) return DEFAULT_SEPA_BATCH_SCHEDULE;
  if (['off', 'false', 'no', '0'].includes(value.toLowerCase())) return undefined;
  // five fields of numbers, ranges, lists, steps and names (MON-FRI, JAN): the cron pg-boss reads
  const field = /^(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?)*$/;
  const fields = value.split(' ');
  if (fields.length !== 5 || !fields.every((f) => field.test(f)))
    throw new ConfigError(
      'PARASOL_SEPA_BATCH_SCHEDULE',
      `must be a cron expression of five fields in UTC (default "${DEFAULT_SEPA_BATCH_SCHEDULE}") or off, got "${value}"`,
    );
  return value;
}

function sepaCutOffConfig(env: Env): Config['sepaCutOff'] {
  const value = optional(env, 'PARASOL_SEPA_CUTOFF') ?? '14:00';
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (!match)
    throw new ConfigError('PARASOL_SEPA_CUTOFF', `must be a time HH:MM (Central European Time), got "${value}"`);
  return Object.freeze({ hour: Number(match[1]), minute: Number(match[2]) });
}

/** For process entry points: the configuration, or the message naming the bad variable and exit 78 (EX_CONFIG). */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
}
