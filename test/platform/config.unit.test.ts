import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { debtorAddressWarning } from '../../src/payouts/index.ts';
import { ConfigError, DEMO_INSURER, loadConfig } from '../../src/platform/config.ts';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
    assert.equal(config.logLevel, 'info');
    assert.ok(Object.isFrozen(config));
  });

  it('reads the SMTP settings, or none; refuses half of them', () => {
    assert.equal(loadConfig({}).smtp, undefined);
    assert.deepEqual(
      loadConfig({
        PARASOL_SMTP_HOST: 'smtp.example.com',
        PARASOL_SMTP_USER: 'parasol',
        PARASOL_SMTP_PASSWORD: 'secret',
        PARASOL_SMTP_FROM: 'Parasol <no-reply@parasol.example>',
      }).smtp,
      {
        host: 'smtp.example.com',
        port: 587,
        secure: false,
        user: 'parasol',
        password: 'secret',
        from: 'Parasol <no-reply@parasol.example>',
      },
    );
    const secure = loadConfig({ PARASOL_SMTP_HOST: 'h', PARASOL_SMTP_SECURE: 'on', PARASOL_SMTP_FROM: 'a@b.example' });
    assert.deepEqual([secure.smtp?.port, secure.smtp?.secure, secure.smtp?.user], [465, true, undefined]);
    assert.throws(
      () => loadConfig({ PARASOL_SMTP_FROM: 'a@b.example' }),
      /PARASOL_SMTP_HOST is required with PARASOL_SMTP_FROM/,
    );
    assert.throws(() => loadConfig({ PARASOL_SMTP_HOST: 'h' }), /PARASOL_SMTP_FROM/);
    assert.throws(
      () => loadConfig({ PARASOL_SMTP_HOST: 'h', PARASOL_SMTP_FROM: 'a@b.example', PARASOL_SMTP_USER: 'u' }),
      /PARASOL_SMTP_PASSWORD/,
    );
    assert.throws(
      () => loadConfig({ PARASOL_SMTP_HOST: 'h', PARASOL_SMTP_FROM: 'a@b.example', PARASOL_SMTP_PORT: '0' }),
      ConfigError,
    );
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PARASOL_DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@db:5432/parasol',
      PARASOL_PUBLIC_URL: 'https://parasol.example/',
      LOG_LEVEL: 'debug',
      PARASOL_DEMO_API_KEY: 'a'.repeat(24),
      PARASOL_DEMO_EMAIL: 'demo@example.com',
      PARASOL_DEMO_PASSWORD: 'correct horse battery',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/parasol');
    assert.equal(config.publicUrl, 'https://parasol.example');
    assert.equal(config.demo.apiKey, 'a'.repeat(24));
  });

  it("the insurer's identity: a demo insurer by default, each field from its variable, checked", () => {
    assert.deepEqual(loadConfig({}).insurer, DEMO_INSURER);
    const insurer = loadConfig({
      PARASOL_INSURER_NAME: 'Acme Assurances SA',
      PARASOL_INSURER_SHORT_NAME: 'Acme',
      PARASOL_INSURER_PRIVACY_EMAIL: 'dpo@acme.example',
    }).insurer;
    assert.equal(insurer.legalName, 'Acme Assurances SA');
    assert.equal(insurer.shortName, 'Acme');
    assert.equal(insurer.privacyEmail, 'dpo@acme.example');
    assert.equal(insurer.registration, DEMO_INSURER.registration);
    assert.throws(() => loadConfig({ PARASOL_INSURER_EMAIL: 'not an email' }), ConfigError);
    assert.throws(() => loadConfig({ PARASOL_INSURER_SHORT_NAME: 'A'.repeat(21) }), ConfigError);
    assert.throws(() => loadConfig({ PARASOL_INSURER_NAME: 'Acme\nInjected' }), ConfigError);
    // printed on every SMS and PDF: nothing hidden, as a brand name (platform/hidden-characters.ts)
    for (const hidden of ['Ac\u202eme', 'Acme\ufe0f', 'Ac\u200bme'])
      assert.throws(
        () => loadConfig({ PARASOL_INSURER_SHORT_NAME: hidden }),
        /without control or invisible characters/,
      );
  });

  it('opens a separate metrics listener only when PARASOL_METRICS_PORT is set', () => {
    assert.equal(loadConfig({}).metricsPort, undefined);
    assert.equal(loadConfig({ PARASOL_METRICS_PORT: '9464' }).metricsPort, 9464);
  });

  it("gives an operator socket's client 30 s to prove itself by default, PARASOL_OPERATOR_HANDSHAKE_SECONDS from 1 to 600", () => {
    assert.equal(loadConfig({}).operatorHandshakeSeconds, 30);
    assert.equal(loadConfig({ PARASOL_OPERATOR_HANDSHAKE_SECONDS: '120' }).operatorHandshakeSeconds, 120);
    for (const bad of ['0', '601', 'ten'])
      assert.throws(
        () => loadConfig({ PARASOL_OPERATOR_HANDSHAKE_SECONDS: bad }),
        (error: unknown) => error instanceof ConfigError && /PARASOL_OPERATOR_HANDSHAKE_SECONDS/.test(error.message),
      );
  });

  it('reminds 3 days before the bank-details due date by default; 0 turns reminders off', () => {
    assert.equal(loadConfig({}).bankDetailsReminderDays, 3);
    assert.equal(loadConfig({ PARASOL_BANK_DETAILS_REMINDER_DAYS: '0' }).bankDetailsReminderDays, 0);
    assert.equal(loadConfig({ PARASOL_BANK_DETAILS_REMINDER_DAYS: '7' }).bankDetailsReminderDays, 7);
    const short = { PARASOL_BANK_DETAILS_DAYS: '2', PARASOL_BANK_DETAILS_REMINDER_DAYS: '0' };
    assert.equal(loadConfig(short).bankDetailsDays, 2, 'a due period shorter than the default window: no reminders');
  });

  it('batches SEPA payouts hourly on weekdays by default (off: never), with a 14:00 CET cut-off', () => {
    assert.equal(loadConfig({}).sepaBatchSchedule, '0 * * * 1-5');
    assert.equal(loadConfig({ PARASOL_SEPA_BATCH_SCHEDULE: 'off' }).sepaBatchSchedule, undefined);
    assert.equal(
      loadConfig({ PARASOL_SEPA_BATCH_SCHEDULE: ' 15  9,15 * * 1-5 ' }).sepaBatchSchedule,
      '15 9,15 * * 1-5',
    );
    assert.deepEqual(loadConfig({}).sepaCutOff, { hour: 14, minute: 0 });
    assert.deepEqual(loadConfig({ PARASOL_SEPA_CUTOFF: '9:30' }).sepaCutOff, { hour: 9, minute: 30 });
  });

  const DEBTOR = {
    PARASOL_SEPA_DEBTOR_NAME: 'Parasol Assurances SA',
    PARASOL_SEPA_DEBTOR_IBAN: 'FR7630006000011234567890189',
    PARASOL_SEPA_DEBTOR_BIC: 'AGRIFRPP',
  };
  it("the insurer's account, and its accounts for other currencies (else the EUR one pays them)", () => {
    assert.equal(loadConfig({}).sepaDebtor, undefined);
    assert.deepEqual(loadConfig(DEBTOR).sepaDebtor, {
      name: 'Parasol Assurances SA',
      iban: 'FR7630006000011234567890189',
      bic: 'AGRIFRPP',
      accounts: {},
    });
    assert.deepEqual(
      loadConfig({
        ...DEBTOR,
        PARASOL_SEPA_DEBTOR_ACCOUNTS: ' GBP:gb33bukb20201555555555:bukbgb22, CHF:CH9300762011623852957:UBSWCHZH80A ',
      }).sepaDebtor?.accounts,
      {
        GBP: { iban: 'GB33BUKB20201555555555', bic: 'BUKBGB22' },
        CHF: { iban: 'CH9300762011623852957', bic: 'UBSWCHZH80A' },
      },
    );
    // the insurer's address: its own country, then one or two lines (pain.001 Dbtr/PstlAdr)
    assert.deepEqual(
      loadConfig({ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: ' fr : 1  place de la Bourse | 75002 Paris ' }).sepaDebtor
        ?.address,
      { country: 'FR', lines: ['1 place de la Bourse', '75002 Paris'] },
    );
    // not the IBAN's: a French account, a treasury in Luxembourg; one line; a colon kept in a line
    assert.deepEqual(
      loadConfig({ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'LU:2 rue Hélène: bât. B, L-1536 Luxembourg' }).sepaDebtor
        ?.address,
      { country: 'LU', lines: ['2 rue Hélène: bât. B, L-1536 Luxembourg'] },
    );
  });

  it('the insurer account without its address: the workers warn at start, naming the variable and what it means', () => {
    assert.equal(debtorAddressWarning(loadConfig({}).sepaDebtor), undefined, 'no account: nothing to say');
    const warning = debtorAddressWarning(loadConfig(DEBTOR).sepaDebtor);
    assert.match(warning ?? '', /^PARASOL_SEPA_DEBTOR_ADDRESS is not set/);
    assert.match(warning!, /payouts to a bank outside the EEA .* are left out/);
    assert.equal(
      debtorAddressWarning(
        loadConfig({ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:1 place de la Bourse|75002 Paris' }).sepaDebtor,
      ),
      undefined,
    );
  });

  const ACH = {
    PARASOL_ACH_IMMEDIATE_DESTINATION: '026009593',
    PARASOL_ACH_IMMEDIATE_DESTINATION_NAME: 'Bank of America',
    PARASOL_ACH_COMPANY_NAME: 'Parasol',
    PARASOL_ACH_COMPANY_ID: '1123456789',
  };
  it('the insurer as an ACH originator, its optional values defaulted', () => {
    assert.equal(loadConfig({}).achOriginator, undefined);
    assert.deepEqual(loadConfig(ACH).achOriginator, {
      immediateDestination: '026009593',
      immediateDestinationName: 'Bank of America',
      immediateOrigin: '1123456789',
      immediateOriginName: 'Parasol',
      companyName: 'Parasol',
      companyId: '1123456789',
      odfiRouting: '026009593',
    });
    assert.equal(loadConfig({ ...ACH, PARASOL_ACH_ODFI_ROUTING: '121000358' }).achOriginator?.odfiRouting, '121000358');
    // a routing number as the origin: the leading blank its environment variable cannot keep (values trimmed)
    for (const given of ['121000358', ' 121000358'])
      assert.equal(
        loadConfig({ ...ACH, PARASOL_ACH_IMMEDIATE_ORIGIN: given }).achOriginator?.immediateOrigin,
        ' 121000358',
      );
    assert.equal(
      loadConfig({ ...ACH, PARASOL_ACH_IMMEDIATE_ORIGIN: '9876543210' }).achOriginator?.immediateOrigin,
      '9876543210',
    );
  });

  const failures: [Record<string, string>, string][] = [
    [{ ...ACH, PARASOL_ACH_IMMEDIATE_DESTINATION: '026009594' }, 'PARASOL_ACH_IMMEDIATE_DESTINATION'],
    [{ ...ACH, PARASOL_ACH_COMPANY_ID: '123456789' }, 'PARASOL_ACH_COMPANY_ID'],
    [{ ...ACH, PARASOL_ACH_COMPANY_NAME: 'Parasol Assurances SA' }, 'PARASOL_ACH_COMPANY_NAME'],
    [{ ...ACH, PARASOL_ACH_ODFI_ROUTING: '12345' }, 'PARASOL_ACH_ODFI_ROUTING'],
    [{ ...ACH, PARASOL_ACH_IMMEDIATE_ORIGIN: '12345678' }, 'PARASOL_ACH_IMMEDIATE_ORIGIN'],
    [{ PARASOL_ACH_COMPANY_ID: '1123456789' }, 'PARASOL_ACH_IMMEDIATE_DESTINATION'],
    [{ PARASOL_SEPA_BATCH_SCHEDULE: 'every hour' }, 'PARASOL_SEPA_BATCH_SCHEDULE'],
    [{ PARASOL_SEPA_CUTOFF: '25:00' }, 'PARASOL_SEPA_CUTOFF'],
    [{ PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB33BUKB20201555555555:BUKBGB22' }, 'PARASOL_SEPA_DEBTOR_NAME'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB33BUKB20201555555555' }, 'PARASOL_SEPA_DEBTOR_ACCOUNTS'],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'EUR:DE89370400440532013000:COBADEFF' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'XDR:DE89370400440532013000:COBADEFF' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'HRK:DE89370400440532013000:COBADEFF' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'ABC:DE89370400440532013000:COBADEFF' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB00BUKB20201555555555:BUKBGB22' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB33BUKB20201555555555:NOTABIC' }, 'PARASOL_SEPA_DEBTOR_ACCOUNTS'],
    // a BIC of a bank in another country than the IBAN's (a German bank's BIC with a British IBAN)
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB33BUKB20201555555555:COBADEFF' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_BIC: 'COBADEFF' }, 'PARASOL_SEPA_DEBTOR_BIC'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:one|two|three' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:1 rue X||Paris' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: `FR:${'ß'.repeat(36)}` }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    // what the file builder would refuse, refusing every pain.001: nothing left in the SEPA Latin set,
    // a hidden character (isSepaAddressLine, the builder's own rule)
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'JP:東京都|Paris' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:!!!' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:1 place de la Bourse\u0007|75002 Paris' },
      'PARASOL_SEPA_DEBTOR_ADDRESS',
    ],
    // the country first: without it, or not one
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: '1 place de la Bourse|75002 Paris' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'XX:1 place de la Bourse' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    // not an officially assigned ISO 3166-1 code, though a region's name exists for it: withdrawn
    // (UK, GB's; DD), reserved (EU)
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'UK:1 Churchill Place|London E14 5HP' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'EU:1 place de la Bourse' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    [{ ...DEBTOR, PARASOL_SEPA_DEBTOR_ADDRESS: 'dd:Unter den Linden 1' }, 'PARASOL_SEPA_DEBTOR_ADDRESS'],
    // on its own, as the accounts: the insurer account is what it is the address of
    [{ PARASOL_SEPA_DEBTOR_ADDRESS: 'FR:1 place de la Bourse|75002 Paris' }, 'PARASOL_SEPA_DEBTOR_NAME'],
    // withdrawn in 2025 (replaced by XCG): no transfer pays it
    [
      { ...DEBTOR, PARASOL_SEPA_DEBTOR_ACCOUNTS: 'ANG:GB33BUKB20201555555555:BUKBGB22' },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [
      {
        ...DEBTOR,
        PARASOL_SEPA_DEBTOR_ACCOUNTS: 'GBP:GB33BUKB20201555555555:BUKBGB22 GBP:GB33BUKB20201555555555:BUKBGB22',
      },
      'PARASOL_SEPA_DEBTOR_ACCOUNTS',
    ],
    [{ PARASOL_SEPA_CUTOFF: '14h' }, 'PARASOL_SEPA_CUTOFF'],
    [{ PARASOL_BANK_DETAILS_REMINDER_DAYS: 'three' }, 'PARASOL_BANK_DETAILS_REMINDER_DAYS'],
    [{ PARASOL_BANK_DETAILS_REMINDER_DAYS: '-1' }, 'PARASOL_BANK_DETAILS_REMINDER_DAYS'],
    // a window as long as the due period would remind with the first message, never before expiry
    [{ PARASOL_BANK_DETAILS_REMINDER_DAYS: '30' }, 'PARASOL_BANK_DETAILS_REMINDER_DAYS'],
    [
      { PARASOL_BANK_DETAILS_DAYS: '10', PARASOL_BANK_DETAILS_REMINDER_DAYS: '12' },
      'PARASOL_BANK_DETAILS_REMINDER_DAYS',
    ],
    [{ PARASOL_BANK_DETAILS_DAYS: '2' }, 'PARASOL_BANK_DETAILS_REMINDER_DAYS'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ PARASOL_PUBLIC_URL: 'ftp://x' }, 'PARASOL_PUBLIC_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PARASOL_DEMO_API_KEY: 'short' }, 'PARASOL_DEMO_API_KEY'],
    [{ PARASOL_DEMO_API_KEY: 'has spaces in it which are not url safe' }, 'PARASOL_DEMO_API_KEY'],
    [{ PARASOL_DEMO_EMAIL: 'demo@example.com' }, 'PARASOL_DEMO_PASSWORD'],
    [{ PARASOL_DEMO_EMAIL: 'nope', PARASOL_DEMO_PASSWORD: 'long enough pw' }, 'PARASOL_DEMO_EMAIL'],
    [{ PARASOL_MASTER_KEY: 'dG9vIHNob3J0' }, 'PARASOL_MASTER_KEY'],
    [{ PARASOL_METRICS_PORT: 'metrics' }, 'PARASOL_METRICS_PORT'],
    [{ PARASOL_METRICS_PORT: '0' }, 'PARASOL_METRICS_PORT'],
    [{ PORT: '9464', PARASOL_METRICS_PORT: '9464' }, 'PARASOL_METRICS_PORT'],
  ];
  it('refuses a URL that does not parse without repeating it: the password it holds stays out of the message', () => {
    // a base64 password with a slash, not percent-encoded: the URL does not parse
    for (const [variable, value] of [
      ['DATABASE_URL', 'postgres://parasol:Zm9v/YmFy+cGFzcw==@db:5432/parasol'],
      ['REDIS_URL', 'redis://:Zm9v/YmFy+cGFzcw==@redis:6379'],
    ] as const)
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          !error.message.includes('Zm9v') &&
          /percent-encode/.test(error.message),
      );
  });

  for (const [env, variable] of failures) {
    it(`fails naming ${variable} for ${JSON.stringify(env)}`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
      );
    });
  }
});
