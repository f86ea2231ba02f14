import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looksLikeXml, parseCamt054 } from '../../src/payouts/camt054.ts';
import { camt054 } from './camt054-sample.ts';

const A = 'PSL5TCW6YBLAJWJL44L7NTNFMIZGB';
const B = 'PSLQ2W7MRJ6SE5KZXH3RNAXH4J3UA';
const C = 'PSL7YB2WQKXGRM4D5ZC3HVN6TJ2EA';

describe('camt.054 reader', () => {
  for (const version of ['02', '08'] as const) {
    it(`camt.054.001.${version}: a booked debit is paid, a credit with return information is returned, with the line of its transaction`, () => {
      const xml = camt054(version, [
        { indicator: 'CRDT', transactions: [{ endToEndId: B, returned: { code: 'AC04', info: 'Account closed' } }] },
        { indicator: 'DBIT', transactions: [{ endToEndId: A }] },
      ]);
      const parsed = parseCamt054(xml);
      assert.deepEqual(parsed.errors, []);
      assert.equal(parsed.message, `camt.054.001.${version}`);
      assert.equal(parsed.messageId, 'BANK-NTF-0001');
      const lines = xml.split('\n');
      assert.deepEqual(
        parsed.rows.map((r) => [r.endToEndId, r.status, r.reason]),
        [
          [A, 'paid', null],
          [B, 'returned', 'AC04 Account closed'],
        ],
        'payments first, then returns',
      );
      for (const row of parsed.rows) {
        assert.equal(lines[row.line - 1]!.trim(), '<TxDtls>', `line ${row.line} starts the transaction`);
        assert.ok(lines.slice(row.line, row.line + 4).some((l) => l.includes(row.endToEndId)));
      }
      assert.deepEqual(parsed.skipped, []);
    });
  }

  it('a credit reversing a booked debit of ours (RvslInd) is a return; a debit marked reversal is not a payment', () => {
    const parsed = parseCamt054(
      camt054('08', [
        { indicator: 'DBIT', transactions: [{ endToEndId: A }] },
        { indicator: 'CRDT', reversal: true, transactions: [{ endToEndId: A }] },
        { indicator: 'DBIT', reversal: true, transactions: [{ endToEndId: B }] },
      ]),
    );
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(
      parsed.rows.map((r) => [r.endToEndId, r.status, r.reason]),
      [
        [A, 'paid', null],
        [A, 'returned', 'reversed by the bank (RvslInd)'],
      ],
    );
    assert.deepEqual(
      parsed.skipped.map((s) => s.reason),
      ['a debit reversing an earlier credit (RvslInd): not a payment of ours — check it with the bank'],
    );
  });

  it('a batch-booked entry (one Ntry, several TxDtls) gives one row per transaction', () => {
    const parsed = parseCamt054(
      camt054('08', [
        { indicator: 'DBIT', amount: '90.00', transactions: [{ endToEndId: A }, { endToEndId: B }, { endToEndId: C }] },
      ]),
    );
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(
      parsed.rows.map((r) => [r.endToEndId, r.status]),
      [
        [A, 'paid'],
        [B, 'paid'],
        [C, 'paid'],
      ],
    );
    assert.equal(new Set(parsed.rows.map((r) => r.line)).size, 3);
  });

  it('skips, with why: pending entries, credits without return information, no or foreign end-to-end ids, entries without details', () => {
    const parsed = parseCamt054(
      camt054('02', [
        { indicator: 'DBIT', status: 'PDNG', transactions: [{ endToEndId: A }] },
        { indicator: 'CRDT', transactions: [{ endToEndId: 'PREMIUM-42' }] },
        { indicator: 'DBIT', transactions: [{ endToEndId: 'NOTPROVIDED' }, {}] },
        { indicator: 'DBIT', transactions: [{ endToEndId: 'has space in it' }] },
        { indicator: 'DBIT', transactions: [] },
        { indicator: 'DBIT', transactions: [{ endToEndId: C, returned: { code: 'AM05' } }] },
        { indicator: 'DBIT', transactions: [{ endToEndId: B }] },
      ]),
    );
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(
      parsed.rows.map((r) => [r.endToEndId, r.status]),
      [[B, 'paid']],
    );
    const reasons = parsed.skipped.map((s) => s.reason);
    assert.equal(reasons.length, 7, JSON.stringify(reasons));
    assert.match(reasons[0]!, /not booked \(status PDNG\)/);
    assert.match(reasons[1]!, /credit without return information/);
    assert.match(reasons[2]!, /no end-to-end id/);
    assert.match(reasons[3]!, /no end-to-end id/);
    assert.match(reasons[4]!, /is not a SEPA end-to-end id/);
    assert.match(reasons[5]!, /without transaction details/);
    assert.match(reasons[6]!, /return information on a DBIT entry/);
    assert.ok(parsed.skipped.every((s) => s.line > 1));
  });

  it('a return takes the original end-to-end id when the bank gives one, and a proprietary reason; reasons are cut to 500 characters', () => {
    const parsed = parseCamt054(
      camt054('08', [
        {
          indicator: 'CRDT',
          transactions: [
            { endToEndId: 'RETURN-REF-1', returned: { proprietary: 'R123', originalEndToEndId: A } },
            { endToEndId: B, returned: { code: 'MS03', info: 'x'.repeat(600) } },
          ],
        },
      ]),
    );
    assert.deepEqual(
      parsed.rows.map((r) => [r.endToEndId, r.status, r.reason?.length]),
      [
        [A, 'returned', 4],
        [B, 'returned', 500],
      ],
    );
    assert.equal(parsed.rows[0]!.reason, 'R123');
  });

  it('accepts namespace prefixes, a BOM, predefined entities; the transaction indicator overrides the entry one', () => {
    const xml =
      '\uFEFF<?xml version="1.0"?>\n<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><c:BkToCstmrDbtCdtNtfctn><c:GrpHdr><c:MsgId>M&amp;1</c:MsgId></c:GrpHdr>' +
      `<c:Ntfctn><c:Ntry><c:CdtDbtInd>DBIT</c:CdtDbtInd><c:Sts><c:Cd>BOOK</c:Cd></c:Sts><c:NtryDtls><c:TxDtls><c:Refs><c:EndToEndId>${A}</c:EndToEndId></c:Refs><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:RtrInf><c:Rsn><c:Cd>AG01</c:Cd></c:Rsn><c:AddtlInf>Blocked &amp; closed</c:AddtlInf></c:RtrInf></c:TxDtls></c:NtryDtls></c:Ntry></c:Ntfctn></c:BkToCstmrDbtCdtNtfctn></c:Document>`;
    assert.ok(looksLikeXml(xml));
    const parsed = parseCamt054(xml);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.messageId, 'M&1');
    assert.deepEqual(parsed.rows, [
      { line: 2, endToEndId: A, status: 'returned', reason: 'AG01 Blocked & closed', amount: null },
    ]);
  });

  it('refuses whole files that are not well-formed XML, not camt.054, or declare a DOCTYPE (no entity expansion)', () => {
    const refused = (xml: string) => {
      const parsed = parseCamt054(xml);
      assert.equal(parsed.rows.length, 0);
      assert.equal(parsed.errors.length, 1);
      return parsed.errors[0]!;
    };
    const good = camt054('08', [{ indicator: 'DBIT', transactions: [{ endToEndId: A }] }]);
    const broken = refused(good.replace('</Ntry>', ''));
    assert.match(broken.message, /^not well-formed XML: /);
    assert.ok(broken.line > 1);
    assert.match(refused('<a>unclosed').message, /not well-formed XML/);
    assert.match(
      refused(good.replaceAll('camt.054.001.08', 'camt.053.001.08')).message,
      /not a camt\.054: this is camt\.053\.001\.08/,
    );
    assert.match(refused(good.replace(/xmlns="[^"]+"/, 'xmlns="urn:example"')).message, /namespace is "urn:example"/);
    assert.match(refused('<Other/>').message, /root element is Other/);
    assert.match(
      refused(good.replace('BkToCstmrDbtCdtNtfctn>', 'Something>').replace('/BkToCstmrDbtCdtNtfctn>', '/Something>'))
        .message,
      /no BkToCstmrDbtCdtNtfctn/,
    );
    const bomb =
      '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>\n' +
      good.slice(good.indexOf('<Document')).replace(A, '&lol2;');
    const xxe = refused(bomb);
    assert.match(xxe.message, /DOCTYPE or entity declaration is refused/);
    assert.equal(xxe.line, 2);
    const external = '<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>';
    assert.match(refused(external).message, /DOCTYPE/);
  });

  it('gives each row the amount and currency the bank reports: the instructed amount, else the transaction’s, else the entry’s when it holds that one transaction', () => {
    for (const version of ['02', '08'] as const) {
      const parsed = parseCamt054(
        camt054(version, [
          { indicator: 'DBIT', transactions: [{ endToEndId: A, amount: '150.00' }] },
          { indicator: 'DBIT', transactions: [{ endToEndId: B, amount: '12345', currency: 'JPY' }] },
          { indicator: 'DBIT', amount: '77.70', transactions: [{ endToEndId: C, amount: null }] },
        ]),
      );
      assert.deepEqual(
        parsed.rows.map((r) => [r.endToEndId, r.amount]),
        [
          [A, { value: '150.00', currency: 'EUR' }],
          [B, { value: '12345', currency: 'JPY' }],
          [C, { value: '77.70', currency: 'EUR' }],
        ],
        `camt.054.001.${version}`,
      );
    }
    // a batch booked as one amount, without amounts per transaction: none to compare
    const batch = parseCamt054(
      camt054('08', [
        {
          indicator: 'DBIT',
          amount: '90.00',
          transactions: [
            { endToEndId: A, amount: null },
            { endToEndId: B, amount: null },
          ],
        },
      ]),
    );
    assert.deepEqual(
      batch.rows.map((r) => r.amount),
      [null, null],
    );
    // the instructed amount wins over the transaction amount (charges may have been taken from the latter)
    const instructed = parseCamt054(
      camt054('08', [{ indicator: 'DBIT', transactions: [{ endToEndId: A, amount: '149.50' }] }]).replace(
        '<Amt Ccy="EUR">149.50</Amt>',
        '<Amt Ccy="EUR">149.50</Amt><AmtDtls><InstdAmt><Amt Ccy="EUR">150.00</Amt></InstdAmt></AmtDtls>',
      ),
    );
    assert.deepEqual(instructed.rows[0]!.amount, { value: '150.00', currency: 'EUR', instructed: true });
  });

  it('tells XML from the CSV by its first character', () => {
    assert.ok(looksLikeXml('  \n<?xml version="1.0"?><a/>'));
    assert.ok(!looksLikeXml('endToEndId,status\n'));
  });
});
