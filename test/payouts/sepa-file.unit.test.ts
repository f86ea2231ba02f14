import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { DomainError } from '../../src/platform/errors.ts';
import { endToEndIdForPayout } from '../../src/payouts/end-to-end-id.ts';
import {
  buildSepaCreditTransferFile,
  writeSepaFile,
  type SepaCreditTransferInput,
} from '../../src/payouts/sepa-file.ts';
import { batch, DEBTOR, payout } from './sample.ts';
import { crossBorderXsd, validateWithXmllint } from './xmllint.ts';

function assertValid(xml: string): void {
  const result = validateWithXmllint(xml);
  assert.ok(result.valid, `xmllint --schema refused the file:\n${result.output}`);
}

const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]);

/** The field errors of the DomainError a call throws. */
function refusal(input: SepaCreditTransferInput): { field: string; message: string }[] {
  try {
    buildSepaCreditTransferFile(input);
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.code, 'validation_failed');
    return error.extra.errors ?? [];
  }
  assert.fail('the file should have been refused');
}

describe('SEPA credit transfer file (pain.001.001.09, EPC SCT 2023)', () => {
  it('validates against the EPC schema and carries the exact amounts, control sum and count', () => {
    const file = buildSepaCreditTransferFile(batch());
    assertValid(file.xml);

    assert.deepEqual(texts(file.xml, 'InstdAmt'), ['0.29', '1.15', '1000000.01']);
    assert.deepEqual(texts(file.xml, 'CtrlSum'), ['1000001.45', '1000001.45']);
    assert.deepEqual(texts(file.xml, 'NbOfTxs'), ['3', '3']);
    assert.equal(file.controlSum, '1000001.45');
    assert.equal(file.controlSumMinor, 100000145n);
    assert.equal(file.numberOfTransactions, 3);
    assert.match(file.xml, /<InstdAmt Ccy="EUR">0\.29<\/InstdAmt>/);
  });

  it('a name with markup or control characters (kept before the bank-details page refused them): only the SEPA Latin set reaches the file', () => {
    const file = buildSepaCreditTransferFile(
      batch({
        payouts: [
          payout({
            endToEndId: 'PSL-E2E-1',
            creditorName: '<script>alert("x")</script>\u0007Jean\u202e Dupont & fils',
          }),
        ],
      }),
    );
    assertValid(file.xml);
    const [name] = texts(file.xml, 'Nm').slice(-1);
    assert.equal(name, 'script alert( x ) /script Jean Dupont + fils');
    assert.match(name!, /^[A-Za-z0-9/\-?:().,'+ ]+$/);
    assert.doesNotMatch(file.xml, /<script/);
    assert.ok(!file.xml.includes('\u0007') && !file.xml.includes('\u202e'), 'no control or invisible character');
  });

  it('writes the identifiers, dates and parties as given', () => {
    const file = buildSepaCreditTransferFile(batch());
    assert.equal(file.fileName, 'PSL-20250312-0001.xml');
    assert.deepEqual(texts(file.xml, 'MsgId'), ['PSL-20250312-0001']);
    assert.deepEqual(texts(file.xml, 'PmtInfId'), ['PSL-20250312-0001-1']);
    assert.deepEqual(texts(file.xml, 'EndToEndId'), ['PSL-E2E-1', 'PSL-E2E-2', 'PSL-E2E-3']);
    assert.deepEqual(texts(file.xml, 'InstrId'), ['PSL-E2E-1', 'PSL-E2E-2', 'PSL-E2E-3']);
    assert.deepEqual(texts(file.xml, 'CreDtTm'), ['2025-03-12T10:15:30Z']);
    assert.match(file.xml, /<ReqdExctnDt><Dt>2025-03-13<\/Dt><\/ReqdExctnDt>/);
    assert.match(
      file.xml,
      /<Dbtr><Nm>Parasol Assurances SA<\/Nm><PstlAdr><Ctry>FR<\/Ctry><AdrLine>1 place de la Bourse<\/AdrLine><AdrLine>75002 Paris<\/AdrLine><\/PstlAdr><\/Dbtr><DbtrAcct><Id><IBAN>FR7630006000011234567890189<\/IBAN><\/Id><\/DbtrAcct><DbtrAgt><FinInstnId><BICFI>AGRIFRPPXXX<\/BICFI>/,
    );
    assert.match(file.xml, /<PmtMtd>TRF<\/PmtMtd><BtchBookg>false<\/BtchBookg>/);
    assert.match(file.xml, /<ChrgBr>SLEV<\/ChrgBr>/);
    // Names transliterated to the SEPA Latin set, IBANs in electronic form, no creditor agent without a BIC.
    assert.deepEqual(texts(file.xml, 'Nm'), [
      'Parasol Assurances SA',
      'Parasol Assurances SA',
      'Helene Muller-Lukasz + fils',
      'Camille Martin',
      'Camille Martin',
    ]);
    assert.deepEqual(texts(file.xml, 'IBAN'), [
      'FR7630006000011234567890189',
      'DE89370400440532013000',
      'NL91ABNA0417164300',
      'IT60X0542811101000000123456',
    ]);
    assert.doesNotMatch(file.xml, /<CdtrAgt>/);
    assert.deepEqual(file.endToEndIds, ['PSL-E2E-1', 'PSL-E2E-2', 'PSL-E2E-3']);
  });

  it('the schema check is live: xmllint refuses a tampered file', () => {
    const file = buildSepaCreditTransferFile(batch());
    const tampered = validateWithXmllint(
      file.xml.replace('<InstdAmt Ccy="EUR">0.29</InstdAmt>', '<InstdAmt Ccy="EUR">0.291</InstdAmt>'),
    );
    assert.equal(tampered.valid, false);
    assert.match(tampered.output, /InstdAmt/);
  });

  it('takes the rulebook maximum 999999999.99 and one cent exactly', () => {
    const file = buildSepaCreditTransferFile(
      batch({
        payouts: [payout({ endToEndId: 'A1', amount: 99_999_999_999 }), payout({ endToEndId: 'A2', amount: 1 })],
      }),
    );
    assertValid(file.xml);
    assert.deepEqual(texts(file.xml, 'InstdAmt'), ['999999999.99', '0.01']);
    assert.deepEqual(texts(file.xml, 'CtrlSum'), ['1000000000.00', '1000000000.00']);
  });

  it('amounts and control sum are exact for any batch (property)', () => {
    // Oracle on integers only: whole euros and cents apart.
    const decimal = (minor: bigint) => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 99_999_999_999 }), { minLength: 1, maxLength: 40 }), (amounts) => {
        const file = buildSepaCreditTransferFile(
          batch({ payouts: amounts.map((amount, i) => payout({ endToEndId: `P-${i}`, amount })) }),
        );
        const total = amounts.reduce((sum, a) => sum + BigInt(a), 0n);
        assert.deepEqual(
          texts(file.xml, 'InstdAmt'),
          amounts.map((a) => decimal(BigInt(a))),
        );
        assert.deepEqual(texts(file.xml, 'CtrlSum'), [decimal(total), decimal(total)]);
        assert.deepEqual(texts(file.xml, 'NbOfTxs'), [String(amounts.length), String(amounts.length)]);
      }),
      { numRuns: 300 },
    );
  });

  it('a batch of 2,000 payouts with real end-to-end ids validates, control sum exact', () => {
    const payouts = Array.from({ length: 2000 }, (_, i) =>
      payout({
        endToEndId: endToEndIdForPayout({ payoutId: crypto.randomUUID() }),
        amount: 1 + ((i * 7919) % 250_000),
      }),
    );
    const file = buildSepaCreditTransferFile(batch({ payouts }));
    assertValid(file.xml);
    const total = payouts.reduce((sum, p) => sum + BigInt(p.amount), 0n);
    assert.equal(file.controlSumMinor, total);
    assert.equal(file.xml.split('<CdtTrfTxInf>').length - 1, 2000);
    assert.equal(texts(file.xml, 'EndToEndId').length, 2000);
  });

  it('a creditor outside the EEA needs a BIC; with one the file names the creditor agent', () => {
    for (const [iban, bic] of [
      ['CH9300762011623852957', 'UBSWCHZH80A'],
      ['GB29NWBK60161331926819', 'NWBKGB2L'],
    ] as const) {
      assert.deepEqual(refusal(batch({ payouts: [payout({ creditorIban: iban })] })), [
        {
          field: '/payouts/0/creditorBic',
          code: 'required',
          message: `a BIC is required for IBANs of ${iban.slice(0, 2)}`,
        },
      ]);
      const file = buildSepaCreditTransferFile(batch({ payouts: [payout({ creditorIban: iban, creditorBic: bic })] }));
      assertValid(file.xml);
      assert.match(file.xml, new RegExp(`<CdtrAgt><FinInstnId><BICFI>${bic}</BICFI></FinInstnId></CdtrAgt><Cdtr>`));
    }
  });

  it('a bank outside the EEA gets the insurer’s address (AT-P005); without one that payout alone is refused, as the insurer’s fault', () => {
    const noAddress = { name: DEBTOR.name, iban: DEBTOR.iban, bic: DEBTOR.bic };
    const abroad = [
      payout({ endToEndId: 'E1' }),
      payout({ endToEndId: 'E2', creditorIban: 'CH9300762011623852957', creditorBic: 'UBSWCHZH80A' }),
      payout({ endToEndId: 'E3', creditorIban: 'GB29NWBK60161331926819', creditorBic: 'NWBKGB2L' }),
    ];
    assert.deepEqual(
      refusal(batch({ debtor: noAddress, payouts: abroad })),
      ['CH', 'GB'].map((country, i) => ({
        field: `/payouts/${i + 1}/debtorAddress`,
        code: 'required',
        message: `is required for a bank outside the EEA (${country}): set PARASOL_SEPA_DEBTOR_ADDRESS, the insurer's postal address`,
      })),
    );
    // within the EEA no address is needed, and none is written
    const inside = buildSepaCreditTransferFile(batch({ debtor: noAddress }));
    assertValid(inside.xml);
    assert.doesNotMatch(inside.xml, /PstlAdr/);
    // with it: Ctry then the lines, transliterated, in the debtor only
    const file = buildSepaCreditTransferFile(
      batch({
        debtor: { ...noAddress, address: { country: 'FR', lines: ['Tour Açores & Œillets', '75002 Paris'] } },
        payouts: abroad,
      }),
    );
    assertValid(file.xml);
    assert.match(
      file.xml,
      /<Dbtr><Nm>Parasol Assurances SA<\/Nm><PstlAdr><Ctry>FR<\/Ctry><AdrLine>Tour Acores \+ OEillets<\/AdrLine><AdrLine>75002 Paris<\/AdrLine><\/PstlAdr><\/Dbtr>/,
    );
    assert.equal(file.xml.split('<PstlAdr>').length, 2, 'one address: the debtor’s');
    // the rules the configuration checks at start (isSepaAddressLine): three lines, nothing left in
    // the Latin set, a hidden character, more than 70 characters once written
    for (const lines of [['a', 'b', 'c'], ['東京都', 'Paris'], ['!!!'], ['1 rue X\u0007'], ['ß'.repeat(36)]])
      assert.deepEqual(
        refusal(batch({ debtor: { ...noAddress, address: { country: 'FR', lines } } })).map((e) => e.field),
        ['/debtor/address'],
        JSON.stringify(lines),
      );
    // and its country rule (isCountryCode): a made-up pair of capitals, "ZZ", lower case; codes a
    // region name exists for but no country has: withdrawn (UK for GB, DD), reserved (EU)
    for (const country of ['QQ', 'ZZ', 'fr', 'UK', 'EU', 'DD'])
      assert.deepEqual(
        refusal(batch({ debtor: { ...noAddress, address: { country, lines: ['1 rue X'] } } })).map((e) => e.field),
        ['/debtor/address'],
        country,
      );
  });

  it('every kind of file the product writes validates and keeps the EPC rules the schema cannot express', () => {
    // the batches' own identifiers (sepa-batch.ts): PSL-<yyyymmdd>-<16 hex>, its PmtInfId <MsgId>-1
    const day = (hex: string) => `PSL-20261127-${hex}`;
    const e2e = (n: number) =>
      endToEndIdForPayout({ payoutId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` });
    const remittance140 = `Parasol CLM-00000001${'ßæ'.repeat(30)}`; // 80 characters, 140 once transliterated
    const cases: [string, SepaCreditTransferInput][] = [
      [
        'one payout',
        batch({
          messageId: day('00A1B2C3D4E5F607'),
          paymentInfoId: `${day('00A1B2C3D4E5F607')}-1`,
          payouts: [payout({ endToEndId: e2e(1) })],
        }),
      ],
      [
        'many payouts, names with accents and outside the Latin set, a remittance of 140 characters',
        batch({
          messageId: day('00A1B2C3D4E5F608'),
          paymentInfoId: `${day('00A1B2C3D4E5F608')}-1`,
          payouts: [
            payout({ endToEndId: e2e(2), creditorName: 'Zoë 王 Straße-Ørsted Œuvre Šťastná', amount: 1 }),
            payout({ endToEndId: e2e(3), creditorName: 'Дмитрий O’Brien “Ltd” <b>&', amount: 99_999_999_999 }),
            payout({ endToEndId: e2e(4), creditorName: 'Æ'.repeat(40), remittanceInformation: remittance140 }),
            payout({
              endToEndId: e2e(5),
              creditorIban: 'GB29NWBK60161331926819',
              creditorBic: 'NWBKGB2L',
              amount: 99_999_999_999,
            }),
          ],
        }),
      ],
    ];
    // (identifiers unique across the day's files and a TARGET execution date are the batch's, not
    // the builder's: sepa-schedule.http.test.ts checks them on two files the job makes in one day)
    for (const [name, input] of cases) {
      const file = buildSepaCreditTransferFile(input);
      assertValid(file.xml);
      const ids = [...texts(file.xml, 'MsgId'), ...texts(file.xml, 'PmtInfId'), ...texts(file.xml, 'EndToEndId')];
      for (const id of ids) {
        assert.match(id!, /^[A-Za-z0-9/\-?:().,'+]{1,35}$/, `${name}: ${id} in the SEPA identifier set`);
        assert.ok(!id!.startsWith('/') && !id!.endsWith('/') && !id!.includes('//'), `${name}: ${id}`);
      }
      const amounts = texts(file.xml, 'InstdAmt');
      const sum = amounts.reduce((total, a) => total + BigInt(a!.replace('.', '')), 0n);
      const [groupSum, infoSum] = texts(file.xml, 'CtrlSum');
      assert.equal(groupSum, infoSum, name);
      assert.equal(BigInt(groupSum!.replace('.', '')), sum, `${name}: CtrlSum is the sum`);
      assert.deepEqual(texts(file.xml, 'NbOfTxs'), [String(amounts.length), String(amounts.length)], name);
      assert.deepEqual(texts(file.xml, 'ChrgBr'), ['SLEV'], name);
      assert.deepEqual(texts(file.xml, 'Cd'), ['SEPA'], name);
      // a creditor agent only with a BIC, by BICFI
      const agents = [...file.xml.matchAll(/<CdtTrfTxInf>([\s\S]*?)<\/CdtTrfTxInf>/g)].map((m) =>
        /<CdtrAgt><FinInstnId><BICFI>[A-Z0-9]{8,11}<\/BICFI><\/FinInstnId><\/CdtrAgt>/.test(m[1]!),
      );
      assert.deepEqual(
        agents,
        input.payouts.map((p) => p.creditorBic !== undefined),
        name,
      );
      for (const text of [...texts(file.xml, 'Nm'), ...texts(file.xml, 'Ustrd'), ...texts(file.xml, 'AdrLine')]) {
        const plain = text!.replaceAll('&apos;', "'");
        assert.match(plain, /^[A-Za-z0-9/\-?:().,'+ ]+$/, `${name}: "${plain}" in the SEPA Latin set`);
      }
      assert.ok(
        texts(file.xml, 'Nm').every((n) => n!.replaceAll('&apos;', "'").length <= 70),
        name,
      );
      assert.ok(
        texts(file.xml, 'Ustrd').every((u) => u!.replaceAll('&apos;', "'").length <= 140),
        name,
      );
    }
    const [, many] = cases[1]!;
    const written = buildSepaCreditTransferFile(many).xml;
    assert.equal(texts(written, 'Ustrd')[2]!.length, 140);
    assert.deepEqual(texts(written, 'Nm').slice(2), [
      'Zoe Strasse-Orsted OEuvre Stastna',
      'O&apos;Brien Ltd b +',
      'AE'.repeat(35),
      'Camille Martin',
    ]);
  });

  it('refuses invalid IBANs, non-SEPA IBANs and wrong BICs, naming each field', () => {
    const errors = refusal(
      batch({
        debtor: { name: 'Parasol', iban: 'FR7630006000011234567890188', bic: 'AGRIFRPPXXX' },
        payouts: [
          payout({ endToEndId: 'E1', creditorIban: 'DE89370400440532013001' }), // checksum
          payout({ endToEndId: 'E2', creditorIban: 'BR1800360305000010009795493C1' }), // valid, not SEPA
          payout({ endToEndId: 'E3', creditorIban: 'not an iban' }),
          payout({ endToEndId: 'E4', creditorIban: 'DE89370400440532013000', creditorBic: 'AGRIFRPPXXX' }), // French bank, German IBAN
          payout({ endToEndId: 'E5', creditorBic: 'XX' }),
        ],
      }),
    );
    assert.deepEqual(errors, [
      { field: '/debtor/iban', code: 'invalid', message: 'looks mistyped: its check digits do not match' },
      { field: '/payouts/0/creditorIban', code: 'invalid', message: 'looks mistyped: its check digits do not match' },
      {
        field: '/payouts/1/creditorIban',
        code: 'not_allowed',
        message: 'IBANs of BR cannot receive SEPA credit transfers',
      },
      {
        field: '/payouts/2/creditorIban',
        code: 'invalid',
        message: 'is not an IBAN (2 letters for the country, 2 check digits, then letters and digits)',
      },
      {
        field: '/payouts/3/creditorBic',
        code: 'invalid',
        message: 'BIC country FR does not match the IBAN country DE',
      },
      { field: '/payouts/4/creditorBic', code: 'invalid', message: 'has 2 characters, a BIC has 8 or 11' },
    ]);
  });

  it('refuses bad identifiers, dates, currencies, amounts and texts', () => {
    const errors = refusal(
      batch({
        messageId: 'PSL/20250312//1',
        paymentInfoId: 'x'.repeat(36),
        requestedExecutionDate: '2025-02-30',
        debtor: { name: '李', iban: 'FR7630006000011234567890189', bic: '' },
        payouts: [
          payout({ endToEndId: 'SAME', amount: 0 }),
          payout({ endToEndId: 'SAME', amount: 100_000_000_000 }),
          payout({ endToEndId: 'has space', amount: 12.5 }),
          payout({
            endToEndId: 'E4',
            currency: 'CHF',
            creditorName: '—',
            remittanceInformation: 'x'.repeat(141),
          }),
        ],
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.field),
      [
        '/messageId',
        '/paymentInfoId',
        '/requestedExecutionDate',
        '/debtor/name',
        '/debtor/bic',
        '/payouts/0/amount',
        '/payouts/1/endToEndId',
        '/payouts/1/amount',
        '/payouts/2/endToEndId',
        '/payouts/2/amount',
        '/payouts/3/currency',
        '/payouts/3/remittanceInformation',
      ],
    );
    assert.deepEqual(refusal(batch({ payouts: [] })), [
      { field: '/payouts', code: 'too_few', message: 'must hold at least one payout' },
    ]);
  });

  it('batch booking on request', () => {
    const file = buildSepaCreditTransferFile(batch({ batchBooking: true }));
    assertValid(file.xml);
    assert.match(file.xml, /<BtchBookg>true<\/BtchBookg>/);
  });

  it('the same input gives the same bytes whatever the process time zone', () => {
    const module = pathToFileURL(path.resolve('src/payouts/sepa-file.ts')).href;
    const sample = pathToFileURL(path.resolve('test/payouts/sample.ts')).href;
    const script = `const { buildSepaCreditTransferFile } = await import(${JSON.stringify(module)}); const { batch } = await import(${JSON.stringify(sample)}); process.stdout.write(buildSepaCreditTransferFile(batch()).xml);`;
    const here = buildSepaCreditTransferFile(batch()).xml;
    for (const tz of ['Pacific/Kiritimati', 'America/Los_Angeles', 'UTC']) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, TZ: tz },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, here, tz);
    }
  });

  it('writes the file once, mode 0600, atomically', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-payouts-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = buildSepaCreditTransferFile(batch());
    const written = await writeSepaFile(path.join(dir, 'out'), file);
    assert.equal(written, path.join(dir, 'out', 'PSL-20250312-0001.xml'));
    assert.equal(fs.readFileSync(written, 'utf8'), file.xml);
    assert.equal(fs.statSync(written).mode & 0o777, 0o600);
    await assert.rejects(
      writeSepaFile(path.join(dir, 'out'), file),
      (e: unknown) => e instanceof DomainError && e.code === 'conflict',
    );
    assert.deepEqual(fs.readdirSync(path.join(dir, 'out')), ['PSL-20250312-0001.xml'], 'no temporary file left');
  });
});

describe('cross-border credit transfer file (pain.001.001.09, another currency than EUR)', () => {
  const xsd = crossBorderXsd();
  const assertCrossBorderValid = (xml: string) => {
    const result = validateWithXmllint(xml, xsd);
    assert.ok(result.valid, `xmllint --schema refused the file:\n${result.output}`);
  };
  const inCurrency = (currency: string, amounts: number[]) =>
    batch({
      currency,
      payouts: amounts.map((amount, i) =>
        payout({
          endToEndId: `PSL-E2E-${i + 1}`,
          currency,
          amount,
          ...(i === 0
            ? { creditorIban: 'GB29 NWBK 6016 1331 9268 19', creditorBic: 'NWBKGB2L' }
            : { creditorBic: 'COBADEFFXXX' }),
        }),
      ),
    });

  it('GBP: no SEPA service level, charges shared (SHAR), the creditor agent named, pence exact; validates', () => {
    const file = buildSepaCreditTransferFile(inCurrency('GBP', [12_345, 7, 100_000_000_001]));
    assertCrossBorderValid(file.xml);
    assert.equal(file.currency, 'GBP');
    assert.doesNotMatch(file.xml, /SvcLvl|SEPA/);
    assert.deepEqual(texts(file.xml, 'ChrgBr'), ['SHAR']);
    assert.deepEqual(texts(file.xml, 'InstdAmt'), ['123.45', '0.07', '1000000000.01']);
    assert.deepEqual(
      [...file.xml.matchAll(/<InstdAmt Ccy="([A-Z]{3})">/g)].map((m) => m[1]),
      ['GBP', 'GBP', 'GBP'],
    );
    assert.deepEqual(texts(file.xml, 'CtrlSum'), ['1000000123.53', '1000000123.53']);
    assert.equal(file.controlSumMinor, 100_000_012_353n);
    assert.deepEqual(
      texts(file.xml, 'BICFI'),
      ['AGRIFRPPXXX', 'NWBKGB2L', 'COBADEFFXXX', 'COBADEFFXXX'],
      'debtor agent, then each creditor agent',
    );
    // the EPC schema refuses it for exactly what makes it not SEPA: the charge bearer, and an amount
    // above the SCT rulebook's ceiling (999 999 999.99)
    const epc = validateWithXmllint(file.xml);
    assert.ok(!epc.valid);
    assert.deepEqual(
      epc.output
        .split('\n')
        .filter((l) => l.includes('validity error'))
        .map((l) => /element (\w+):/.exec(l)?.[1]),
      ['ChrgBr', 'InstdAmt'],
    );
  });

  it('in the currency’s own minor units: JPY without decimals, KWD with three; validates', () => {
    const yen = buildSepaCreditTransferFile(inCurrency('JPY', [5_000, 7]));
    assertCrossBorderValid(yen.xml);
    assert.deepEqual(texts(yen.xml, 'InstdAmt'), ['5000', '7']);
    assert.deepEqual(texts(yen.xml, 'CtrlSum'), ['5007', '5007']);
    const dinar = buildSepaCreditTransferFile(inCurrency('KWD', [1_234, 7]));
    assertCrossBorderValid(dinar.xml);
    assert.deepEqual(texts(dinar.xml, 'InstdAmt'), ['1.234', '0.007']);
    assert.deepEqual(texts(dinar.xml, 'CtrlSum'), ['1.241', '1.241']);
  });

  it('amounts and control sum are exact in any currency (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('GBP', 'JPY', 'KWD', 'CHF', 'SEK'),
        fc.array(fc.integer({ min: 1, max: 99_999_999_999 }), { minLength: 1, maxLength: 20 }),
        (currency, amounts) => {
          const file = buildSepaCreditTransferFile(inCurrency(currency, amounts));
          const exponent = currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
          const back = texts(file.xml, 'InstdAmt').map((t) => Number(BigInt(t!.replace('.', ''))));
          assert.deepEqual(back, amounts);
          for (const t of texts(file.xml, 'InstdAmt'))
            assert.equal(t!.includes('.') ? t!.split('.')[1]!.length : 0, exponent);
          assert.equal(
            file.controlSumMinor,
            amounts.reduce((a, b) => a + BigInt(b), 0n),
          );
        },
      ),
      { numRuns: 50 },
    );
  });

  it('refuses a payout of another currency than the file’s, and currencies no transfer can carry', () => {
    const mixed = refusal({
      ...inCurrency('GBP', [100, 200]),
      payouts: [
        payout({ currency: 'GBP', creditorBic: 'COBADEFFXXX' }),
        payout({ endToEndId: 'E2', currency: 'EUR', creditorBic: 'COBADEFFXXX' }),
      ],
    });
    assert.deepEqual(
      mixed.map((e) => e.field),
      ['/payouts/1/currency'],
    );
    assert.match(mixed[0]!.message, /must be GBP, the file's currency/);
    // outside SEPA a transfer names the creditor's bank: a payout without its BIC is refused (left
    // out of the file by the batch); a EUR payout to a SEPA IBAN needs none
    const withoutBic = refusal({
      ...inCurrency('GBP', [100, 200]),
      payouts: [
        payout({ currency: 'GBP', creditorBic: 'COBADEFFXXX' }),
        payout({ endToEndId: 'E2', currency: 'GBP', creditorBic: null }),
      ],
    });
    assert.deepEqual(withoutBic, [
      {
        field: '/payouts/1/creditorBic',
        code: 'required',
        message: 'is required for a transfer outside SEPA (another currency than EUR)',
      },
    ]);
    assert.ok(buildSepaCreditTransferFile(batch({ payouts: [payout({ creditorBic: null })] })).xml);
    assert.deepEqual(
      refusal(inCurrency('XDR', [100])).map((e) => e.field),
      ['/currency'],
    );
    assert.deepEqual(
      refusal(inCurrency('ABC', [100])).map((e) => e.field),
      ['/currency'],
    );
  });
});
