import fs from 'node:fs/promises';
import { Command, CommanderError, Option } from 'commander';
import { claimsCommands } from './claims-commands.ts';
import { webhooksCommands } from './webhooks-commands.ts';
import { flightsCommands } from './flights-commands.ts';
import { riskCommands } from './risk-commands.ts';
import { limitsCommands } from './limits-commands.ts';
import { riskVersionCommands } from './risk-versions-commands.ts';
import type { FlightProviders } from '../monitoring/providers.ts';
import { sql } from 'kysely';
import type { DelayTier, Formula } from '../flight/coverage.ts';
import { createApiKey, revokeApiKey } from '../partners/api-keys.ts';
import { setConfiguration } from '../partners/configuration.ts';
import { APIS, ENVIRONMENTS, type Agreement, type ApiKeyInfo, type Configuration, type Environment } from '../partners/model.ts';
import { createPartner, parseApiName, requirePartner, setAgreement, setSubscription, signAgreement } from '../partners/partners.ts';
import * as repo from '../partners/partners-repo.ts';
import { createUser } from '../partners/users.ts';
import type { Config } from '../platform/config.ts';
import type { Keyring } from '../platform/crypto.ts';
import { migrationFiles, type Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { formatMoney, toMinorUnits } from '../platform/money.ts';

/**
 * The operator command line. `runCli` parses one command line with a fresh commander program, runs
 * the use case and returns the exit code: 0 success, 1 domain error (the use case refused), 2 usage
 * error (unknown command or option, missing argument), 70 unexpected error. It never exits the
 * process and writes only through `io`, so tests call it directly.
 */

export interface CliIo {
  db: Db;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Recorded in the audit log as the author of every change. */
  actor?: string;
  /** Reads all of standard input (`users create --password-stdin`); defaults to process.stdin. */
  readStdin?: () => Promise<string>;
  /** Migrations the caller applied when it opened the database, reported by `db migrate`. */
  applied?: readonly string[];
  /**
   * What commands beyond partner administration need (claims, payouts, webhooks, flights): the
   * configuration, the keyring (encrypted fields) and a started job queue (jobs enqueued in the
   * command's transaction). Opened by the caller; `services()` fails clearly when absent.
   */
  config?: Config;
  keys?: Keyring;
  jobs?: JobQueue;
  /** Reads a file named on the command line (`payouts reconcile <file>`); defaults to the file system. */
  readFile?: (file: string) => Promise<string>;
  /** `flights check`: the flight-status providers (default: from config) and the clock (tests). */
  flightProviders?: FlightProviders;
  now?: () => Date;
}

/** What a command module gets from runCli to declare its commands (see claims-commands.ts). */
export interface CommandKit {
  group: (name: string, description: string, example: string) => Command;
  leaf: (parent: Command, nameAndArgs: string, description: string, example: string) => Command;
  run: <A extends unknown[]>(fn: (...args: A) => Promise<Result>, names?: FieldNames) => (...args: A) => Promise<void>;
  db: Db;
  actor: string;
  services: () => { config: Config; keys: Keyring; jobs: JobQueue };
  readFile: (file: string) => Promise<string>;
}

export const EXIT = { ok: 0, domain: 1, usage: 2, internal: 70 } as const;

/** What a command prints: `data` with --json (one JSON document), `lines` otherwise. */
export interface Result {
  data: unknown;
  lines: string[];
}

/** Names the command-line option behind a field pointer of a use case ("/commissionRate" → "--commission"). */
export type FieldNames = (pointer: string) => string | undefined;
const fieldMap =
  (map: Record<string, string>): FieldNames =>
  (pointer) =>
    map[pointer];

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const actor = io.actor ?? 'operator:cli';
  const db = io.db;
  let fieldNames: FieldNames = () => undefined;
  let helpWentToErr = false;

  const program = new Command('parasol')
    .description('Parasol operator command line: partners, agreements, subscriptions, configuration and API keys.')
    .option('--json', 'machine-readable output: one JSON document on stdout')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      outputError: (text, write) => write(text),
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      [
        '',
        'Partners are given by slug or id. Amounts are typed in major units ("50.00" EUR = 5000 cents).',
        '',
        'Examples:',
        '  $ parasol partners create --slug acme-air --name "Acme Air"',
        '  $ parasol agreement set acme-air --formulas delay,cancellation --currency EUR --tax-rate 0.09 \\',
        '      --commission-min 0 --commission-max 0.3 --compensation-min 10.00 --compensation-max 500.00',
        '  $ parasol --json partners show acme-air',
        '',
        'Exit codes: 0 success, 1 refused (error: … with the fields at fault), 2 usage error.',
      ].join('\n'),
    );
  program.on('afterAllHelp', (context: { error: boolean }) => {
    helpWentToErr = context.error;
  });

  const json = (): boolean => program.opts<{ json?: boolean }>().json === true;

  /** The configuration, keyring and job queue, for the commands that need them. */
  const services = (): { config: Config; keys: Keyring; jobs: JobQueue } => {
    if (!io.config || !io.keys || !io.jobs) throw new Error('This command needs the configuration, keys and job queue (CliIo.config, keys, jobs).');
    return { config: io.config, keys: io.keys, jobs: io.jobs };
  };

  /** Wraps an action: remembers how to name its fields, runs it, prints its result. */
  const run =
    <A extends unknown[]>(fn: (...args: A) => Promise<Result>, names: FieldNames = () => undefined) =>
    async (...args: A): Promise<void> => {
      fieldNames = names;
      const result = await fn(...args);
      if (json()) io.out(JSON.stringify(result.data, null, 2));
      else for (const line of result.lines) io.out(line);
    };

  const group = (name: string, description: string, example: string): Command =>
    program.command(name).description(description).addHelpText('after', `\nExample:\n  $ ${example}`);
  const leaf = (parent: Command, nameAndArgs: string, description: string, example: string): Command =>
    parent.command(nameAndArgs).description(description).addHelpText('after', `\nExample:\n  $ ${example}`);

  // ---------------------------------------------------------------------------------------------
  // partners

  const partners = group('partners', 'Create, list and show partners', 'parasol partners list');

  leaf(partners, 'create', 'Create a partner (no agreement, subscription or key yet)', 'parasol partners create --slug acme-air --name "Acme Air"')
    .requiredOption('--slug <slug>', 'lowercase letters, digits and dashes; used in URLs and commands')
    .requiredOption('--name <name>', 'display name')
    .action(
      run(async (options: { slug: string; name: string }) => {
        const partner = await createPartner(db, actor, { slug: options.slug, name: options.name });
        return { data: { partner }, lines: [`Created partner ${partner.slug} (${partner.id}).`] };
      }, fieldMap({ '/slug': '--slug', '/name': '--name' })),
    );

  leaf(partners, 'list', 'List all partners', 'parasol partners list').action(
    run(async () => {
      const all = await repo.listPartners(db);
      const lines = all.length
        ? table(['SLUG', 'NAME', 'ID', 'CREATED'], all.map((p) => [p.slug, p.name, p.id, when(p.createdAt)]))
        : ['No partners yet. Create one with: parasol partners create --slug <slug> --name <name>'];
      return { data: { partners: all }, lines };
    }),
  );

  leaf(partners, 'show <partner>', 'Show a partner: agreement, subscriptions, current configuration and keys', 'parasol partners show acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const [agreement, subscriptions, configuration, keys] = await Promise.all([
        repo.findAgreement(db, partner.id),
        repo.listSubscriptions(db, partner.id),
        repo.findCurrentConfiguration(db, partner.id),
        repo.listApiKeys(db, partner.id),
      ]);
      const summary = keysSummary(keys);
      const lines = [
        ...pairs([
          ['Partner', `${partner.slug} (${partner.id})`],
          ['Name', partner.name],
          ['Created', when(partner.createdAt)],
          ['Subscriptions', subscriptions.length ? subscriptions.join(', ') : 'none'],
          ['Keys', summary.length ? summary.map((s) => `${s.environment} ${s.active} active, ${s.revoked} revoked`).join('; ') : 'none'],
        ]),
        '',
        ...agreementLines(agreement),
        '',
        ...configurationLines(configuration),
      ];
      return {
        data: {
          partner,
          agreement: agreement ? agreementJson(agreement) : null,
          subscriptions,
          configuration: configuration ? configurationJson(configuration) : null,
          keys: summary,
        },
        lines,
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // agreement

  const agreement = group('agreement', "Set, sign and show a partner's agreement with the insurer", 'parasol agreement show acme-air');

  leaf(
    agreement,
    'set <partner>',
    'Set the terms of the draft agreement (a signed agreement cannot change)',
    'parasol agreement set acme-air --formulas delay,cancellation,delay_and_cancellation --currency EUR --tax-rate 0.09 --commission-min 0 --commission-max 0.3 --compensation-min 10.00 --compensation-max 500.00',
  )
    .requiredOption('--formulas <list>', 'comma-separated allowed formulas: delay, cancellation, delay_and_cancellation')
    .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. EUR')
    .requiredOption('--tax-rate <rate>', 'insurance premium tax, decimal between 0 and 0.99 (0.09 = 9 %)')
    .requiredOption('--commission-min <rate>', 'lowest commission rate the partner may choose')
    .requiredOption('--commission-max <rate>', 'highest commission rate the partner may choose (at most 0.9)')
    .requiredOption('--compensation-min <amount>', 'lowest compensation per passenger, in major units (10.00)')
    .requiredOption('--compensation-max <amount>', 'highest compensation per passenger, in major units (500.00)')
    .action(
      run(
        async (
          ref: string,
          options: { formulas: string; currency: string; taxRate: string; commissionMin: string; commissionMax: string; compensationMin: string; compensationMax: string },
        ) => {
          const currency = options.currency.trim().toUpperCase();
          const errors: FieldError[] = [];
          let compensationMin = 0;
          let compensationMax = 0;
          if (!/^[A-Z]{3}$/.test(currency)) {
            errors.push({ field: '/currency', message: 'must be an ISO 4217 code such as EUR' });
          } else {
            compensationMin = amountOrError(options.compensationMin, currency, '/compensationMin', errors);
            compensationMax = amountOrError(options.compensationMax, currency, '/compensationMax', errors);
          }
          if (errors.length) throw new DomainError('validation_failed', 'The agreement is not valid.', { errors });
          const partner = await requirePartner(db, ref);
          const saved = await setAgreement(db, actor, partner.id, {
            allowedFormulas: options.formulas
              .split(',')
              .map((f) => f.trim())
              .filter((f) => f !== '') as Formula[],
            currency,
            taxRate: options.taxRate.trim(),
            commissionMin: options.commissionMin.trim(),
            commissionMax: options.commissionMax.trim(),
            compensationMin,
            compensationMax,
          });
          return {
            data: { partner: partner.slug, agreement: agreementJson(saved) },
            lines: [`Agreement of ${partner.slug} saved as a draft; sign it with: parasol agreement sign ${partner.slug}`, '', ...agreementLines(saved)],
          };
        },
        fieldMap({
          '/allowedFormulas': '--formulas',
          '/currency': '--currency',
          '/taxRate': '--tax-rate',
          '/commissionMin': '--commission-min',
          '/commissionMax': '--commission-max',
          '/compensationMin': '--compensation-min',
          '/compensationMax': '--compensation-max',
        }),
      ),
    );

  leaf(agreement, 'sign <partner>', 'Sign the agreement: unlocks preproduction and production keys', 'parasol agreement sign acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const before = await repo.findAgreement(db, partner.id);
      const signed = await signAgreement(db, actor, partner.id);
      const already = before?.status === 'signed';
      return {
        data: { partner: partner.slug, alreadySigned: already, agreement: agreementJson(signed) },
        lines: [already ? `The agreement of ${partner.slug} was already signed (${when(signed.signedAt)} by ${signed.signedBy}).` : `Signed the agreement of ${partner.slug}.`],
      };
    }),
  );

  leaf(agreement, 'show <partner>', "Show a partner's agreement", 'parasol agreement show acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const found = await repo.findAgreement(db, partner.id);
      return { data: { partner: partner.slug, agreement: found ? agreementJson(found) : null }, lines: agreementLines(found) };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // subscriptions

  const subscriptions = group('subscriptions', `Choose which APIs a partner's keys reach (${APIS.join(', ')})`, 'parasol subscriptions list acme-air');
  const apiNames = fieldMap({ '/api': '<api>' });

  for (const [name, subscribed] of [
    ['add', true],
    ['remove', false],
  ] as const) {
    leaf(
      subscriptions,
      `${name} <partner> <api>`,
      subscribed ? `Subscribe a partner to an API (${APIS.join(', ')})` : 'Unsubscribe a partner from an API',
      `parasol subscriptions ${name} acme-air flight-delay`,
    ).action(
      run(async (ref: string, apiText: string) => {
        const api = parseApiName(apiText);
        const partner = await requirePartner(db, ref);
        const before = await repo.listSubscriptions(db, partner.id);
        const after = await setSubscription(db, actor, partner.id, api, subscribed);
        const unchanged = before.includes(api) === subscribed;
        const message = subscribed
          ? unchanged
            ? `${partner.slug} was already subscribed to ${api}.`
            : `Subscribed ${partner.slug} to ${api}.`
          : unchanged
            ? `${partner.slug} was not subscribed to ${api}.`
            : `Unsubscribed ${partner.slug} from ${api}.`;
        return {
          data: { partner: partner.slug, api, changed: !unchanged, subscriptions: after },
          lines: [message, `Subscriptions: ${after.length ? after.join(', ') : 'none'}`],
        };
      }, apiNames),
    );
  }

  leaf(subscriptions, 'list <partner>', "List a partner's API subscriptions", 'parasol subscriptions list acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listSubscriptions(db, partner.id);
      return { data: { partner: partner.slug, subscriptions: list }, lines: list.length ? list : [`${partner.slug} has no subscriptions.`] };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // config

  const config = group('config', "Set and show a partner's coverage configuration (versioned)", 'parasol config show acme-air --history');

  leaf(
    config,
    'set <partner>',
    'Save a new configuration version, checked against the agreement',
    'parasol config set acme-air --formula delay_and_cancellation --tier 120=50.00 --tier 180=100.00 --cancellation 150.00 --commission 0.2',
  )
    .requiredOption('--formula <formula>', 'delay, cancellation or delay_and_cancellation')
    .option('--tier <minutes=amount>', 'delay tier: minutes of arrival delay = amount paid, in major units (repeatable)', collect, [])
    .option('--cancellation <amount>', 'amount paid for a cancelled leg, in major units')
    .requiredOption('--commission <rate>', "partner's commission rate, within the agreement's bounds (0.2 = 20 %)")
    .action(
      async (ref: string, options: { formula: string; tier: string[]; cancellation?: string; commission: string }) => {
        const tierNames: FieldNames = (pointer) => {
          const tier = /^\/delayTiers\/(\d+)(\/|$)/.exec(pointer);
          if (tier) return `--tier ${options.tier[Number(tier[1])] ?? `#${Number(tier[1]) + 1}`}`;
          return { '/formula': '--formula', '/commissionRate': '--commission', '/delayTiers': '--tier', '/cancellationAmount': '--cancellation' }[pointer];
        };
        await run(async () => {
          const partner = await requirePartner(db, ref);
          const terms = await repo.findAgreement(db, partner.id);
          if (!terms) throw new DomainError('agreement_missing', `${partner.slug} has no agreement; set it first with: parasol agreement set ${partner.slug} …`);
          const errors: FieldError[] = [];
          const delayTiers: DelayTier[] = options.tier.map((text, i) => {
            const match = /^\s*(\d+)\s*=\s*(\S+)\s*$/.exec(text);
            if (!match) {
              errors.push({ field: `/delayTiers/${i}`, message: 'must be <minutes>=<amount>, e.g. 120=50.00' });
              return { minDelayMinutes: 0, amount: 0 };
            }
            return { minDelayMinutes: Number(match[1]), amount: amountOrError(match[2] ?? '', terms.currency, `/delayTiers/${i}/amount`, errors) };
          });
          const cancellationAmount = options.cancellation === undefined ? 0 : amountOrError(options.cancellation, terms.currency, '/cancellationAmount', errors);
          const commissionRate = options.commission.trim();
          if (!/^\d+(\.\d{1,5})?$/.test(commissionRate)) {
            errors.push({ field: '/commissionRate', message: 'must be a decimal rate with at most 5 decimals, e.g. 0.2' });
          }
          if (errors.length) throw new DomainError('validation_failed', 'The configuration is not valid.', { errors });
          const saved = await setConfiguration(db, actor, partner.id, { formula: options.formula as Formula, delayTiers, cancellationAmount, commissionRate });
          return {
            data: { partner: partner.slug, configuration: configurationJson(saved) },
            lines: [`Saved configuration version ${saved.version} of ${partner.slug}.`, '', ...configurationLines(saved)],
          };
        }, tierNames)();
      },
    );

  leaf(config, 'show <partner>', 'Show the current configuration (or every version with --history)', 'parasol config show acme-air --history')
    .option('--history', 'list every version, newest first')
    .action(
      run(async (ref: string, options: { history?: boolean }) => {
        const partner = await requirePartner(db, ref);
        if (!options.history) {
          const current = await repo.findCurrentConfiguration(db, partner.id);
          return { data: { partner: partner.slug, configuration: current ? configurationJson(current) : null }, lines: configurationLines(current) };
        }
        const versions = await repo.listConfigurations(db, partner.id);
        const lines = versions.length
          ? table(
              ['VERSION', 'FORMULA', 'DELAY TIERS', 'CANCELLATION', 'COMMISSION', 'CREATED', 'BY'],
              versions.map((c) => [
                String(c.version),
                c.formula,
                c.delayTiers.length ? c.delayTiers.map((t) => `${t.minDelayMinutes}=${formatMoney(t.amount, c.currency)}`).join(', ') : '-',
                c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-',
                c.commissionRate,
                when(c.createdAt),
                c.createdBy,
              ]),
            )
          : [`${partner.slug} has no configuration yet.`];
        return { data: { partner: partner.slug, configurations: versions.map(configurationJson) }, lines };
      }),
    );

  // ---------------------------------------------------------------------------------------------
  // keys

  const keys = group('keys', 'Create, list and revoke API keys', 'parasol keys list acme-air');

  leaf(keys, 'create <partner>', 'Create an API key; its plaintext is shown once', 'parasol keys create acme-air --env sandbox --label "staging server"')
    .addOption(new Option('--env <environment>', 'environment of the key (preproduction and production need a signed agreement)').choices(ENVIRONMENTS).makeOptionMandatory())
    .option('--label <text>', 'free text to recognise the key later')
    .action(
      run(async (ref: string, options: { env: Environment; label?: string }) => {
        const partner = await requirePartner(db, ref);
        const { key, plaintext } = await createApiKey(db, actor, { partnerId: partner.id, environment: options.env, label: options.label });
        const warning = 'Store this key now: it is not stored in clear and will not be shown again.';
        return {
          data: { partner: partner.slug, key: keyJson(key), plaintext, warning },
          lines: [`Created ${key.environment} key ${key.id} for ${partner.slug}${key.label ? ` (${key.label})` : ''}:`, '', `  ${plaintext}`, '', warning],
        };
      }),
    );

  leaf(keys, 'list <partner>', "List a partner's API keys (never their plaintext)", 'parasol keys list acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listApiKeys(db, partner.id);
      const lines = list.length
        ? table(
            ['ID', 'KEY', 'ENV', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
            list.map((k) => [k.id, k.display, k.environment, k.label ?? '-', when(k.createdAt), when(k.lastUsedAt), when(k.revokedAt)]),
          )
        : [`${partner.slug} has no API keys.`];
      return { data: { partner: partner.slug, keys: list.map(keyJson) }, lines };
    }),
  );

  leaf(keys, 'revoke <partner> <keyId>', 'Revoke an API key at once (the id comes from keys list)', 'parasol keys revoke acme-air 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a').action(
    run(async (ref: string, keyId: string) => {
      const partner = await requirePartner(db, ref);
      if (!UUID.test(keyId)) throw new DomainError('api_key_not_found', `No API key ${keyId} for this partner.`);
      const startedAt = Date.now();
      const key = await revokeApiKey(db, actor, partner.id, keyId);
      const already = key.revokedAt !== null && key.revokedAt.getTime() < startedAt;
      return {
        data: { partner: partner.slug, alreadyRevoked: already, key: keyJson(key) },
        lines: [already ? `Key ${key.display} (${key.id}) was already revoked on ${when(key.revokedAt)}.` : `Revoked ${key.environment} key ${key.display} (${key.id}) of ${partner.slug}.`],
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // users

  const users = group('users', 'Create partner console users', 'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin');

  leaf(users, 'create <partner>', 'Create a console user; the password is read from standard input', 'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin')
    .requiredOption('--email <email>', 'login email')
    .option('--password-stdin', 'read the password (at least 10 characters) from standard input')
    .action(
      async (ref: string, options: { email: string; passwordStdin?: boolean }, command: Command) => {
        if (!options.passwordStdin) command.error('error: pass --password-stdin and the password on standard input (never on the command line)');
        await run(async () => {
          const partner = await requirePartner(db, ref);
          const password = (await (io.readStdin ?? readProcessStdin)()).replace(/\r?\n$/, '');
          const user = await createUser(db, actor, { partnerId: partner.id, email: options.email, password });
          return { data: { partner: partner.slug, user }, lines: [`Created user ${user.email} (${user.id}) for ${partner.slug}.`] };
        }, fieldMap({ '/email': '--email', '/password': 'password (stdin)' }))();
      },
    );

  // ---------------------------------------------------------------------------------------------
  // db

  const database = group('db', 'Database maintenance', 'parasol db migrate');

  leaf(database, 'migrate', 'Apply pending migrations (done at every start) and list the applied ones', 'parasol db migrate').action(
    run(async () => {
      const appliedNow = [...(io.applied ?? [])];
      const rows = (await sql<{ name: string; applied_at: Date }>`SELECT name, applied_at FROM schema_migrations ORDER BY name`.execute(db)).rows;
      const done = new Set(rows.map((r) => r.name));
      const pending = migrationFiles().filter((f) => !done.has(f));
      return {
        data: { appliedNow, migrations: rows.map((r) => ({ name: r.name, appliedAt: r.applied_at })), pending },
        lines: [
          appliedNow.length ? `Applied ${appliedNow.length} migration(s) now: ${appliedNow.join(', ')}` : 'The database is up to date.',
          ...(pending.length ? [`Pending: ${pending.join(', ')}`] : []),
          '',
          ...table(['MIGRATION', 'APPLIED'], rows.map((r) => [r.name, when(r.applied_at)])),
        ],
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // claims and payouts (src/cli/claims-commands.ts)

  claimsCommands({ group, leaf, run, db, actor, services, readFile: io.readFile ?? ((file) => fs.readFile(file, 'utf8')) });

  // webhooks (src/cli/webhooks-commands.ts)

  webhooksCommands({ group, leaf, run, db, actor, services, readFile: io.readFile ?? ((file) => fs.readFile(file, 'utf8')) });

  // flight monitoring (src/cli/flights-commands.ts)

  flightsCommands({ group, leaf, run, db, actor, services, readFile: io.readFile ?? ((file) => fs.readFile(file, 'utf8')) }, { providers: io.flightProviders, now: io.now });

  // risk model: fit, evaluate, predict on files (src/cli/risk-commands.ts, no database); its versions
  // in the database (src/cli/risk-versions-commands.ts)

  riskVersionCommands({ group, leaf, run, db, actor, services, readFile: io.readFile ?? ((file) => fs.readFile(file, 'utf8')) }, riskCommands({ group, leaf, run }));

  // limits on accumulation: caps, exposure, stop-sales (src/cli/limits-commands.ts)

  limitsCommands({ group, leaf, run, db, actor, services, readFile: io.readFile ?? ((file) => fs.readFile(file, 'utf8')) }, { now: io.now, defaultCapMajor: io.config?.flightCapDefault });

  // ---------------------------------------------------------------------------------------------

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      if (error.code === 'commander.help') return helpWentToErr ? EXIT.usage : EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof DomainError) {
      const errors = (error.extra.errors ?? []).map((e) => ({ ...e, option: fieldNames(e.field) ?? null }));
      if (json()) {
        io.err(JSON.stringify({ error: { code: error.code, detail: error.detail, errors } }, null, 2));
      } else {
        io.err(`error: ${error.detail}`);
        for (const e of errors) io.err(`  ${e.option ?? e.field}: ${e.message}`);
      }
      return EXIT.domain;
    }
    io.err(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.internal;
  }
}

/**
 * True when the command line only asks for help (no arguments, -h/--help, `help …`): the entry
 * point then runs without opening the database, so help works while a server holds it.
 */
export function isHelpRequest(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  if (args.length === 0) return true;
  if (args.some((a) => a === '-h' || a === '--help')) return true;
  return args.find((a) => !a.startsWith('-')) === 'help';
}

// ---------------------------------------------------------------------------------------------
// money: major-unit decimal strings ⇄ integer minor units, without floating point

/** Digits after the decimal point for a currency (EUR 2, JPY 0, KWD 3). */
function amountOrError(text: string, currency: string, field: string, errors: FieldError[]): number {
  try {
    return toMinorUnits(text, currency);
  } catch (error) {
    errors.push({ field, message: (error as Error).message });
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// presentation

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** UTC, to the second: "2026-03-01 09:30:12Z"; "-" when absent. */
export function when(date: Date | null): string {
  return date ? date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}

export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function pairs(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}

const moneyJson = (amount: number, currency: string) => ({ amount, currency });

function agreementJson(a: Agreement) {
  return {
    status: a.status,
    allowedFormulas: a.allowedFormulas,
    currency: a.currency,
    taxRate: a.taxRate,
    commissionMin: a.commissionMin,
    commissionMax: a.commissionMax,
    compensationMin: moneyJson(a.compensationMin, a.currency),
    compensationMax: moneyJson(a.compensationMax, a.currency),
    signedAt: a.signedAt,
    signedBy: a.signedBy,
  };
}

function agreementLines(a: Agreement | undefined): string[] {
  if (!a) return ['Agreement  none yet (parasol agreement set <partner> …)'];
  return pairs([
    ['Agreement', a.status === 'signed' ? `signed ${when(a.signedAt)} by ${a.signedBy ?? '?'}` : 'draft (not signed)'],
    ['Formulas', a.allowedFormulas.join(', ')],
    ['Currency', a.currency],
    ['Tax rate', a.taxRate],
    ['Commission', `${a.commissionMin} – ${a.commissionMax}`],
    ['Compensation', `${formatMoney(a.compensationMin, a.currency)} – ${formatMoney(a.compensationMax, a.currency)}`],
  ]);
}

function configurationJson(c: Configuration) {
  return {
    id: c.id,
    version: c.version,
    formula: c.formula,
    delayTiers: c.delayTiers.map((t) => ({ minDelayMinutes: t.minDelayMinutes, amount: moneyJson(t.amount, c.currency) })),
    cancellationAmount: moneyJson(c.cancellationAmount, c.currency),
    commissionRate: c.commissionRate,
    currency: c.currency,
    createdBy: c.createdBy,
    createdAt: c.createdAt,
  };
}

function configurationLines(c: Configuration | undefined): string[] {
  if (!c) return ['Configuration  none yet (parasol config set <partner> …)'];
  return pairs([
    ['Configuration', `version ${c.version}, ${when(c.createdAt)} by ${c.createdBy}`],
    ['Formula', c.formula],
    ['Delay tiers', c.delayTiers.length ? c.delayTiers.map((t) => `≥ ${t.minDelayMinutes} min: ${formatMoney(t.amount, c.currency)}`).join(', ') : '-'],
    ['Cancellation', c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-'],
    ['Commission', c.commissionRate],
  ]);
}

function keyJson(k: ApiKeyInfo) {
  return { id: k.id, display: k.display, environment: k.environment, label: k.label, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt };
}

function keysSummary(list: ApiKeyInfo[]): { environment: Environment; active: number; revoked: number }[] {
  return ENVIRONMENTS.map((environment) => {
    const of = list.filter((k) => k.environment === environment);
    return { environment, active: of.filter((k) => !k.revokedAt).length, revoked: of.filter((k) => k.revokedAt).length };
  }).filter((s) => s.active + s.revoked > 0);
}

