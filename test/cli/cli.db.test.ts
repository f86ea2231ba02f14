import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { amountOrError, formatMoney as money, parseMajorAmount, toMinorUnits } from '../../src/platform/money.ts';
import type { FieldError } from '../../src/platform/errors.ts';
import * as repo from '../../src/partners/partners-repo.ts';
import type { Db } from '../../src/platform/db.ts';
import { openTestDatabase, runCliOn, uniqueSlug } from '../helper.ts';

/** The operator CLI, driven through runCliOn (test/helper.ts) against the test database (one shared handle). */

const { db } = await openTestDatabase({ after: (close: () => unknown) => after(async () => void (await close())) });

interface Run {
  code: number;
  out: string;
  err: string;
}

/** The CLI on this file's database (or another), with what standard input gives when told. */
function cli(argv: string[], options: { stdin?: string; database?: Db } = {}): Promise<Run> {
  const stdin = options.stdin;
  return runCliOn({ db: options.database ?? db }, argv, stdin === undefined ? {} : { readStdin: async () => stdin });
}

/** Runs a command that must succeed and returns its --json document. */
async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const run = await cli(['--json', ...argv]);
  assert.equal(run.code, 0, `${argv.join(' ')} failed: ${run.err}`);
  return JSON.parse(run.out) as T;
}

const AGREEMENT_ARGS = [
  '--formulas',
  'delay,cancellation,delay_and_cancellation',
  '--currency',
  'EUR',
  '--tax-rate',
  '0.09',
  '--commission-min',
  '0',
  '--commission-max',
  '0.3',
  '--compensation-min',
  '10.00',
  '--compensation-max',
  '500.00',
];

async function newPartner(): Promise<string> {
  const slug = uniqueSlug('cli');
  const run = await cli(['partners', 'create', '--slug', slug, '--name', 'CLI Test Air']);
  assert.equal(run.code, 0, run.err);
  return slug;
}

async function partnerWithAgreement(sign: boolean): Promise<string> {
  const slug = await newPartner();
  assert.equal((await cli(['agreement', 'set', slug, ...AGREEMENT_ARGS])).code, 0);
  if (sign) assert.equal((await cli(['agreement', 'sign', slug])).code, 0);
  return slug;
}

describe('operator flow', () => {
  it('creates a partner, signs its agreement, subscribes, configures and manages keys', async () => {
    const slug = uniqueSlug('cli');
    const created = await cli(['partners', 'create', '--slug', slug, '--name', 'Acme Air']);
    assert.equal(created.code, 0, created.err);
    assert.match(created.out, new RegExp(`Created partner ${slug} \\(`));
    const partner = await repo.findPartner(db, slug);
    assert.ok(partner);

    const set = await cli(['agreement', 'set', slug, ...AGREEMENT_ARGS]);
    assert.equal(set.code, 0, set.err);
    assert.match(set.out, /10\.00 EUR – 500\.00 EUR/);
    const draft = await repo.findAgreement(db, partner.id);
    assert.equal(draft?.status, 'draft');
    assert.equal(draft?.compensationMin, 1000);
    assert.equal(draft?.compensationMax, 50000);

    const signed = await cli(['agreement', 'sign', slug]);
    assert.equal(signed.code, 0, signed.err);
    assert.equal((await repo.findAgreement(db, partner.id))?.signedBy, 'operator:test');
    assert.match((await cli(['agreement', 'sign', slug])).out, /already signed/);

    for (const api of ['flight-delay', 'demo']) assert.equal((await cli(['subscriptions', 'add', slug, api])).code, 0);
    assert.deepEqual(await repo.listSubscriptions(db, partner.id), ['demo', 'flight-delay']);
    assert.equal((await cli(['subscriptions', 'remove', slug, 'demo'])).code, 0);
    assert.deepEqual((await cli(['subscriptions', 'list', slug])).out, 'flight-delay');

    const config = await cli([
      'config',
      'set',
      slug,
      '--formula',
      'delay_and_cancellation',
      '--tier',
      '120=50.00',
      '--tier',
      '180=100',
      '--cancellation',
      '150.00',
      '--commission',
      '0.2',
    ]);
    assert.equal(config.code, 0, config.err);
    const current = await repo.findCurrentConfiguration(db, partner.id);
    assert.deepEqual(current?.delayTiers, [
      { minDelayMinutes: 120, amount: 5000 },
      { minDelayMinutes: 180, amount: 10000 },
    ]);
    assert.equal(current?.cancellationAmount, 15000);
    assert.equal(current?.commissionRate, '0.2');
    assert.match((await cli(['config', 'show', slug])).out, /50\.00 EUR.*100\.00 EUR/);

    // a label is at most 100 characters as typed, as in the consoles: nothing is created
    const long = await cli(['keys', 'create', slug, '--env', 'production', '--label', 'x'.repeat(101)]);
    assert.notEqual(long.code, 0);
    assert.match(long.err + long.out, /at most 100 characters/);
    assert.deepEqual(await repo.listApiKeys(db, partner.id), []);
    const key = await cli(['keys', 'create', slug, '--env', 'production', '--label', 'prod server']);
    assert.equal(key.code, 0, key.err);
    const plaintext = /psl_live_\S+/.exec(key.out)?.[0];
    assert.ok(plaintext, key.out);
    assert.match(key.out, /will not be shown again/);

    const list = await cli(['keys', 'list', slug]);
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /prod server/);
    assert.match(list.out, /production/);
    assert.ok(!list.out.includes(plaintext), 'keys list never shows the plaintext');
    const [info] = await repo.listApiKeys(db, partner.id);
    assert.ok(info && list.out.includes(info.display) && list.out.includes(info.id));

    const revoked = await cli(['keys', 'revoke', slug, info.id]);
    assert.equal(revoked.code, 0, revoked.err);
    assert.match(revoked.out, /Revoked production key/);
    assert.ok((await repo.listApiKeys(db, partner.id))[0]?.revokedAt);
    assert.match((await cli(['keys', 'revoke', slug, info.id])).out, /already revoked/);

    const show = await cli(['partners', 'show', partner.id]);
    assert.equal(show.code, 0, show.err);
    assert.match(show.out, /production 0 active, 1 revoked/);
    assert.match(show.out, /signed/);
    assert.match((await cli(['partners', 'list'])).out, new RegExp(slug));
  });

  it('keeps every configuration version', async () => {
    const slug = await partnerWithAgreement(false);
    for (const commission of ['0.1', '0.25']) {
      assert.equal(
        (
          await cli([
            'config',
            'set',
            slug,
            '--formula',
            'cancellation',
            '--cancellation',
            '99.99',
            '--commission',
            commission,
          ])
        ).code,
        0,
      );
    }
    const history = await json<{
      configurations: { version: number; commissionRate: string; cancellationAmount: { amount: number } }[];
    }>('config', 'show', slug, '--history');
    assert.deepEqual(
      history.configurations.map((c) => [c.version, c.commissionRate, c.cancellationAmount.amount]),
      [
        [2, '0.25', 9999],
        [1, '0.1', 9999],
      ],
    );
  });

  it('creates a console user with the password read from stdin', async () => {
    const slug = await newPartner();
    const email = `${slug}@example.com`;
    const created = await cli(['users', 'create', slug, '--email', email, '--password-stdin'], {
      stdin: 'correct horse battery\n',
    });
    assert.equal(created.code, 0, created.err);
    assert.match(created.out, new RegExp(`Created user ${email}`));
    const short = await cli(['users', 'create', slug, '--email', `x-${email}`, '--password-stdin'], {
      stdin: 'short\n',
    });
    assert.equal(short.code, 1);
    assert.match(short.err, /password \(stdin\): must be at least 10 characters/);
    const noFlag = await cli(['users', 'create', slug, '--email', `y-${email}`]);
    assert.equal(noFlag.code, 2);
    assert.match(noFlag.err, /--password-stdin/);
  });

  it('creates users with a role and lists them', async () => {
    const slug = await newPartner();
    const dev = await cli(
      ['users', 'create', slug, '--email', `dev-${slug}@example.com`, '--role', 'developer', '--password-stdin'],
      {
        stdin: 'correct horse battery\n',
      },
    );
    assert.equal(dev.code, 0, dev.err);
    assert.match(dev.out, /, developer\) for /);
    const wrong = await cli(
      ['users', 'create', slug, '--email', `x-${slug}@example.com`, '--role', 'owner', '--password-stdin'],
      {
        stdin: 'correct horse battery\n',
      },
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /--role: must be one of admin, developer, viewer/);
    const listed = await json<{ email: string; role: string; status: string }[]>('users', 'list', slug);
    assert.deepEqual(
      listed.map((u) => [u.email, u.role, u.status]),
      [[`dev-${slug}@example.com`, 'developer', 'active']],
    );
  });

  it('reports the applied migrations', async () => {
    const report = await json<{ migrations: { name: string }[]; pending: string[] }>('db', 'migrate');
    assert.ok(report.migrations.some((m) => m.name === '0001_foundation.sql'));
    assert.deepEqual(report.pending, []);
  });
});

describe('amounts in major units', () => {
  it('converts exactly to minor units with the currency exponent', () => {
    assert.equal(toMinorUnits('10.00', 'EUR'), 1000);
    assert.equal(toMinorUnits('10', 'EUR'), 1000);
    assert.equal(toMinorUnits('10.5', 'EUR'), 1050);
    assert.equal(toMinorUnits('0.29', 'EUR'), 29); // 0.29 * 100 = 28.999999999999996 in floating point
    assert.equal(toMinorUnits('1.15', 'EUR'), 115);
    assert.equal(toMinorUnits('90071992547409.91', 'EUR'), Number.MAX_SAFE_INTEGER);
    assert.equal(toMinorUnits('500', 'JPY'), 500);
    assert.equal(toMinorUnits('1.234', 'KWD'), 1234);
  });

  it('refuses more decimals than the currency has, signs and other notations', () => {
    for (const [text, currency] of [
      ['10.005', 'EUR'],
      ['500.5', 'JPY'],
      ['1.2345', 'KWD'],
      ['-1.00', 'EUR'],
      ['1e3', 'EUR'],
      ['1,00', 'EUR'],
      ['.5', 'EUR'],
      ['', 'EUR'],
      ['90071992547409.92', 'EUR'],
    ] as const) {
      assert.throws(() => toMinorUnits(text, currency), RangeError, `${text} ${currency}`);
    }
  });

  it('reads an amount as typed: one decimal comma, the currency’s decimals (KWD 3), no sign (parseMajorAmount)', () => {
    assert.equal(parseMajorAmount('1,50', 'EUR'), 150);
    assert.equal(parseMajorAmount(' 10.50 ', 'EUR'), 1050);
    assert.equal(parseMajorAmount('1,23', 'KWD'), 1230);
    assert.equal(parseMajorAmount('1.5', 'KWD'), 1500);
    assert.equal(parseMajorAmount('1000', 'JPY'), 1000);
    for (const [text, currency] of [
      ['-1,50', 'EUR'],
      ['-1.50', 'EUR'],
      ['1,505', 'EUR'],
      ['1,2345', 'KWD'],
      ['1,234', 'KWD'],
      ['1,5', 'JPY'],
      ['1,000.50', 'EUR'],
      ['1,000,00', 'EUR'],
      [',5', 'EUR'],
    ] as const)
      assert.throws(() => parseMajorAmount(text, currency), RangeError, `${text} ${currency}`);
    const errors: FieldError[] = [];
    assert.equal(amountOrError('1,505', 'EUR', '/a', errors), 0);
    assert.equal(amountOrError('90071992547409.92', 'EUR', '/b', errors), 0);
    assert.equal(amountOrError('2,5', 'EUR', '/c', errors), 250);
    assert.deepEqual(
      errors.map((e) => [e.field, e.code, e.message]),
      [
        ['/a', 'invalid_format', 'EUR amounts have at most 2 decimals'],
        ['/b', 'out_of_range', 'is too large'],
      ],
    );
  });

  it('shows minor units as major units', () => {
    assert.equal(money(5000, 'EUR'), '50.00 EUR');
    assert.equal(money(5, 'EUR'), '0.05 EUR');
    assert.equal(money(500, 'JPY'), '500 JPY');
    assert.equal(money(1234, 'KWD'), '1.234 KWD');
  });

  it('refuses an agreement whose amount has too many decimals, and stores nothing', async () => {
    const slug = await newPartner();
    const args = AGREEMENT_ARGS.map((a) => (a === '10.00' ? '10.005' : a));
    const run = await cli(['agreement', 'set', slug, ...args]);
    assert.equal(run.code, 1);
    assert.match(run.err, /^error: The agreement is not valid\./);
    assert.match(run.err, /\n {2}--compensation-min: EUR amounts have at most 2 decimals/);
    assert.deepEqual(await json('agreement', 'show', slug), { partner: slug, agreement: null });
  });

  it('reads the compensation bounds with a decimal comma, as the operator console does (agreementTermsFrom)', async () => {
    const slug = await newPartner();
    const args = AGREEMENT_ARGS.map((a) => (a === '10.00' ? '10,50' : a));
    assert.equal((await cli(['agreement', 'set', slug, ...args])).code, 0);
    const shown = await json<{ agreement: { compensationMin: unknown } }>('agreement', 'show', slug);
    assert.match(JSON.stringify(shown.agreement.compensationMin), /1050/);
  });

  it('reads configuration amounts in the agreement currency', async () => {
    const slug = await newPartner();
    const jpy = AGREEMENT_ARGS.map((a) =>
      a === 'EUR' ? 'JPY' : a === '10.00' ? '1000' : a === '500.00' ? '50000' : a,
    );
    assert.equal((await cli(['agreement', 'set', slug, ...jpy])).code, 0);
    const refused = await cli([
      'config',
      'set',
      slug,
      '--formula',
      'delay',
      '--tier',
      '120=5000.5',
      '--commission',
      '0.1',
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /--tier 120=5000\.5: JPY has no minor unit/);
    const saved = await json<{ configuration: { delayTiers: { amount: { amount: number; currency: string } }[] } }>(
      'config',
      'set',
      slug,
      '--formula',
      'delay',
      '--tier',
      '120=5000',
      '--commission',
      '0.1',
    );
    assert.deepEqual(saved.configuration.delayTiers[0]?.amount, { amount: 5000, currency: 'JPY' });
  });
});

describe('domain errors exit 1 with the fields at fault', () => {
  it('refuses a commission above the agreement bound', async () => {
    const slug = await partnerWithAgreement(true);
    const run = await cli(['config', 'set', slug, '--formula', 'delay', '--tier', '120=50.00', '--commission', '0.35']);
    assert.equal(run.code, 1);
    assert.match(run.err, /^error: The configuration is outside what the agreement allows\./);
    assert.match(run.err, /\n {2}--commission: commission rate must be between 0 and 0\.3/);
    assert.equal(run.out, '');
  });

  it('refuses a malformed commission rate without reaching the use case', async () => {
    const slug = await partnerWithAgreement(true);
    const run = await cli(['config', 'set', slug, '--formula', 'delay', '--tier', '120=50.00', '--commission', 'abc']);
    assert.equal(run.code, 1);
    assert.match(run.err, /--commission: must be a decimal rate/);
  });

  it('refuses an unknown api', async () => {
    const slug = await newPartner();
    const run = await cli(['subscriptions', 'add', slug, 'weather']);
    assert.equal(run.code, 1);
    assert.match(run.err, /^error: Unknown API "weather"/);
    assert.match(run.err, /<api>: must be one of flight-delay, demo, policy-admin/);
  });

  it('refuses a production key before the agreement is signed, but gives a sandbox key', async () => {
    const slug = await partnerWithAgreement(false);
    const run = await cli(['keys', 'create', slug, '--env', 'production']);
    assert.equal(run.code, 1);
    assert.match(run.err, /^error: production keys need a signed agreement/);
    assert.equal((await cli(['keys', 'create', slug, '--env', 'sandbox'])).code, 0);
  });

  it('names unknown partners and keys', async () => {
    const missing = await cli(['partners', 'show', uniqueSlug('missing')]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^error: No partner "missing-/);
    const slug = await newPartner();
    assert.equal((await cli(['keys', 'revoke', slug, 'not-a-key'])).code, 1);
    assert.equal((await cli(['keys', 'revoke', slug, '--', '-'.repeat(36)])).code, 1);
    assert.equal((await cli(['keys', 'revoke', slug, '0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a'])).code, 1);
  });

  it('refuses a duplicate slug', async () => {
    const slug = await newPartner();
    const run = await cli(['partners', 'create', '--slug', slug, '--name', 'Again']);
    assert.equal(run.code, 1);
    assert.match(run.err, /already exists/);
    const bad = await cli(['partners', 'create', '--slug', 'Not A Slug', '--name', 'x']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--slug: must be/);
  });
});

describe('usage', () => {
  it("exits 2 on usage errors with commander's message", async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['partners', 'list', '--colour'], /unknown option '--colour'/],
      [['partners', 'show'], /missing required argument 'partner'/],
      [['partners', 'create', '--slug', 'x-y'], /required option '--name <name>' not specified/],
      [['keys', 'create', 'acme', '--env', 'live'], /Allowed choices are sandbox, preproduction, production/],
      [['subscriptions', 'add', 'acme'], /missing required argument 'api'/],
      [[], /Usage: parasol/],
      [['keys'], /Usage: parasol keys/],
    ];
    for (const [argv, message] of cases) {
      const run = await cli(argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.match(run.err, message, argv.join(' '));
    }
  });

  it('prints help and exits 0, with a description and an example for each command', async () => {
    const top = await cli(['--help']);
    assert.equal(top.code, 0);
    // every exit code cli/main.ts may end with, as docs/OPERATOR.md lists them
    for (const code of [0, 1, 2, 69, 70, 75, 77, 78])
      assert.match(top.out, new RegExp(`[ :]${code} [a-z]`), `exit ${code}`);
    // a connection to the server lost: 70 once the command was sent (it may have run), 75 before (run it again)
    const exitCodes = top.out.replace(/\s+/g, ' ');
    assert.match(exitCodes, /70 unexpected error or the connection to the server lost after the command was sent/);
    assert.match(exitCodes, /75 .* or the connection to the server lost before the command was sent \(run it again\)/);
    assert.match(exitCodes, /77 the operator secret did not match or cannot be read/);
    for (const group of ['partners', 'agreement', 'subscriptions', 'config', 'keys', 'users', 'emails', 'db'])
      assert.match(top.out, new RegExp(`\\n  ${group} `));
    for (const argv of [
      ['partners', 'create'],
      ['partners', 'show'],
      ['agreement', 'set'],
      ['subscriptions', 'add'],
      ['config', 'set'],
      ['keys', 'create'],
      ['keys', 'revoke'],
      ['db', 'migrate'],
    ]) {
      const run = await cli([...argv, '--help']);
      assert.equal(run.code, 0, argv.join(' '));
      assert.match(run.out, new RegExp(`Usage: parasol ${argv.join(' ')}`));
      assert.match(run.out, /Example:\n {2}\$ parasol /);
    }
    const viaHelpCommand = await cli(['help', 'keys']);
    assert.equal(viaHelpCommand.code, 0);
    assert.match(viaHelpCommand.out, /Usage: parasol keys/);
  });

  it('every example in --help is a command that exists, with options it takes', async () => {
    /** The subcommands a help text lists (its "Commands:" section), `help` aside. */
    const commandsOf = (help: string) =>
      [...(/\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)]
        .map((m) => m[1]!)
        .filter((name) => name !== 'help');
    const helps = new Map<string, string>();
    const visit = async (path: string[]): Promise<void> => {
      const run = await cli([...path, '--help']);
      assert.equal(run.code, 0, path.join(' '));
      helps.set(path.join(' '), run.out);
      for (const sub of commandsOf(run.out)) await visit([...path, sub]);
    };
    await visit([]);
    assert.ok(helps.size > 60, `every command visited: ${helps.size}`);
    const wrong: string[] = [];
    for (const [where, help] of helps) {
      // each `parasol …` of the examples (a line after `$ `; a `\` continues it), between pipes and `&&`
      const text = help.replace(/\\\n\s*/g, ' ');
      for (const [, line] of text.matchAll(/\$ ([^\n]*)/g)) {
        for (const one of line!.split(/ && | \| /).map((part) => /\bparasol .*/.exec(part)?.[0] ?? '')) {
          if (!one) continue;
          const words = (one.match(/"[^"]*"|\S+/g) ?? []).slice(1).filter((w) => w !== '--json');
          const path: string[] = [];
          while (words.length && commandsOf(helps.get(path.join(' '))!).includes(words[0]!)) path.push(words.shift()!);
          const leaf = helps.get(path.join(' '))!;
          if (commandsOf(leaf).length > 0) wrong.push(`${where || 'parasol'}: "${one}" names no command`);
          // an option it declares: a flag at the start of a line of its options, above its examples
          // (an example, or a description naming another option, is no declaration)
          const declared = leaf.split(/\nExamples?:/)[0]!;
          for (const option of words.filter((w) => w.startsWith('--')))
            if (!new RegExp(`^ {2}(?:-\\w, )?${option.split('=')[0]}(?=[ ,]|$)`, 'm').test(declared))
              wrong.push(`${where || 'parasol'}: "${one}": ${path.join(' ')} takes no ${option}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('does not touch the database for help', async () => {
    const unopened = new Proxy({} as Db, {
      get() {
        throw new Error('database used');
      },
    });
    assert.equal((await cli(['config', 'set', '--help'], { database: unopened })).code, 0);
  });
});

describe('--json', () => {
  it('prints one JSON document for every command', async () => {
    const slug = uniqueSlug('cli');
    const created = await json<{ partner: { id: string; slug: string } }>(
      'partners',
      'create',
      '--slug',
      slug,
      '--name',
      'Json Air',
    );
    assert.equal(created.partner.slug, slug);
    const agreement = await json<{ agreement: { compensationMin: unknown; status: string } }>(
      'agreement',
      'set',
      slug,
      ...AGREEMENT_ARGS,
    );
    assert.deepEqual(agreement.agreement.compensationMin, { amount: 1000, currency: 'EUR' });
    assert.equal((await json<{ agreement: { status: string } }>('agreement', 'sign', slug)).agreement.status, 'signed');
    assert.deepEqual(
      (await json<{ subscriptions: string[] }>('subscriptions', 'add', slug, 'policy-admin')).subscriptions,
      ['policy-admin'],
    );
    assert.deepEqual((await json<{ subscriptions: string[] }>('subscriptions', 'list', slug)).subscriptions, [
      'policy-admin',
    ]);
    await json('config', 'set', slug, '--formula', 'delay', '--tier', '120=50.00', '--commission', '0.2');
    const key = await json<{ key: { id: string; environment: string }; plaintext: string; warning: string }>(
      'keys',
      'create',
      slug,
      '--env',
      'preproduction',
    );
    assert.match(key.plaintext, /^psl_pre_/);
    assert.equal(key.key.environment, 'preproduction');
    const keys = await json<{ keys: { id: string; revokedAt: string | null }[] }>('keys', 'list', slug);
    assert.deepEqual(
      keys.keys.map((k) => k.id),
      [key.key.id],
    );
    assert.ok((await json<{ key: { revokedAt: string | null } }>('keys', 'revoke', slug, key.key.id)).key.revokedAt);
    const show = await json<{ partner: { id: string }; configuration: { version: number }; keys: unknown[] }>(
      'partners',
      'show',
      slug,
    );
    assert.equal(show.partner.id, created.partner.id);
    assert.equal(show.configuration.version, 1);
    assert.deepEqual(show.keys, [{ environment: 'preproduction', active: 0, revoked: 1 }]);
    const list = await json<{ partners: { slug: string }[] }>('partners', 'list');
    assert.ok(list.partners.some((p) => p.slug === slug));
  });

  it('prints domain errors as JSON with the field pointers', async () => {
    const slug = await partnerWithAgreement(true);
    const run = await cli([
      '--json',
      'config',
      'set',
      slug,
      '--formula',
      'delay',
      '--tier',
      '120=50.00',
      '--commission',
      '0.5',
    ]);
    assert.equal(run.code, 1);
    assert.equal(run.out, '');
    const body = JSON.parse(run.err) as { error: { code: string; errors: { field: string; option: string | null }[] } };
    assert.equal(body.error.code, 'configuration_out_of_bounds');
    assert.deepEqual(
      body.error.errors.map((e) => [e.field, e.option]),
      [['/commissionRate', '--commission']],
    );
  });
});

describe('bin/parasol.js', () => {
  it('prints the help as a real process and exits 0', async () => {
    const bin = fileURLToPath(new URL('../../bin/parasol.js', import.meta.url));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-cli-'));
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        bin,
        ['--help'],
        { env: { ...process.env, PARASOL_DATA_DIR: dataDir }, timeout: 60_000 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    assert.equal(result.code, 0, result.stderr);
    for (const group of ['partners', 'agreement', 'subscriptions', 'config', 'keys'])
      assert.match(result.stdout, new RegExp(`\\n  ${group} `));
    assert.deepEqual(fs.readdirSync(dataDir), [], 'help opens no database');
  });
});
