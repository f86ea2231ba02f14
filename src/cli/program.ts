import fs from 'node:fs/promises';
import { Command, CommanderError } from 'commander';
import { DomainError } from '../platform/errors.ts';
import { claimsCommands } from './claims-commands.ts';
import { dbCommands } from './db-commands.ts';
import { flightsCommands } from './flights-commands.ts';
import { EXIT, type CliIo, type CommandKit, type FieldNames, type Result } from './kit.ts';
import { ledgerCommands } from './ledger-commands.ts';
import { limitsCommands } from './limits-commands.ts';
import { operatorsCommands } from './operators-commands.ts';
import { agreementCommands } from './agreement-commands.ts';
import { configCommands } from './config-commands.ts';
import { keysCommands } from './keys-commands.ts';
import { partnersCommands } from './partners-commands.ts';
import { subscriptionsCommands } from './subscriptions-commands.ts';
import { payoutsCommands } from './payouts-commands.ts';
import { riskCommands } from './risk-commands.ts';
import { rateLimitsCommands } from './rate-limits-commands.ts';
import { DEFAULT_RATE_LIMITS } from '../platform/config.ts';
import { riskVersionCommands } from './risk-versions-commands.ts';
import { usersCommands } from './users-commands.ts';
import { emailsCommands } from './emails-commands.ts';
import { smsCommands } from './sms-commands.ts';
import { policiesCommands } from './policies-commands.ts';
import { webhooksCommands } from './webhooks-commands.ts';

export { EXIT, type CliIo, type CommandKit, type Result } from './kit.ts';
import { masterKeyCommands } from './master-key-commands.ts';

/**
 * The operator command line. `runCli` parses one command line with a fresh commander program, runs
 * the use case and returns the exit code: 0 success, 1 domain error (the use case refused), 2 usage
 * error (unknown command or option, missing argument), 70 unexpected error. It never exits the
 * process and writes only through `io`, so tests call it directly.
 */
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
        'Exit codes: 0 success, 1 refused (error: … with the fields at fault), 2 usage error, 69 the database cannot be',
        'opened or migrated, 70 unexpected error or the connection to the server lost after the command was sent (it',
        'may have run), 75 the embedded database is held by a process that takes no commands (or db migrate while the',
        'server runs) or the connection to the server lost before the command was sent (run it again), 77 the operator',
        'secret did not match or cannot be read, 78 bad configuration.',
      ].join('\n'),
    );
  program.on('afterAllHelp', (context: { error: boolean }) => {
    helpWentToErr = context.error;
  });

  const json = (): boolean => program.opts<{ json?: boolean }>().json === true;

  /** The configuration, keyring and job queue, for the commands that need them. */
  const services: CommandKit['services'] = () => {
    if (!io.config || !io.keys || !io.jobs)
      throw new Error('This command needs the configuration, keys and job queue (CliIo.config, keys, jobs).');
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

  // The one place a command gets its database and context: every command file receives this kit.
  const kit: CommandKit = {
    group,
    leaf,
    run,
    db,
    actor,
    services,
    readFile: async (file, maxBytes) => {
      const tooLarge = (size: number, read: boolean) =>
        new DomainError(
          'payload_too_large',
          `${file} is ${size} bytes: this command reads at most ${maxBytes} bytes (${read ? 'refused on arrival, before parsing' : 'nothing was read'}).`,
        );
      // on this machine, the size is checked before a byte is read
      if (maxBytes !== undefined && !io.readFile) {
        const { size } = await fs.stat(file);
        if (size > maxBytes) throw tooLarge(size, false);
      }
      let text: string;
      try {
        text = await (io.readFile ?? ((name: string) => fs.readFile(name, 'utf8')))(file, maxBytes);
      } catch (error) {
        // through the operator socket, the client checked the size before reading (EFBIG, with the size)
        const { code, size } = error as { code?: unknown; size?: unknown };
        if (maxBytes !== undefined && code === 'EFBIG' && typeof size === 'number') throw tooLarge(size, false);
        throw error;
      }
      // a reader that does not check first (a client of an earlier version): checked on arrival, before anything parses it
      if (maxBytes !== undefined && Buffer.byteLength(text, 'utf8') > maxBytes)
        throw tooLarge(Buffer.byteLength(text, 'utf8'), true);
      return text;
    },
    readBytes: io.readBytes,
    writeBytes: io.writeBytes,
    io,
  };

  // One group per file, in the order of --help.
  partnersCommands(kit);
  agreementCommands(kit);
  subscriptionsCommands(kit);
  configCommands(kit);
  keysCommands(kit);
  usersCommands(kit);
  emailsCommands(kit);
  smsCommands(kit);
  dbCommands(kit);
  claimsCommands(kit);
  payoutsCommands(kit);
  // money reporting: bordereaux, partner statements, the ledger's backfill
  ledgerCommands(kit);
  operatorsCommands(kit);
  webhooksCommands(kit, { resolve: io.resolveHost });
  policiesCommands(kit);
  flightsCommands(kit, { providers: io.flightProviders, now: io.now });
  // risk model: fit, evaluate, predict on files (no database); its versions in the database
  riskVersionCommands(kit, riskCommands(kit));
  // limits on accumulation: caps, exposure, stop-sales
  limitsCommands(kit, { now: io.now, defaultCapMajor: io.config?.flightCapDefault, keys: io.keys });
  // rate limits per partner and operation class
  rateLimitsCommands(kit, io.config?.rateLimits ?? DEFAULT_RATE_LIMITS);
  // master encryption key: status, rotate, add (src/cli/master-key-commands.ts)
  masterKeyCommands(kit);

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
