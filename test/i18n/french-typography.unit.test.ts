import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { customerWords, label } from '../../src/i18n/index.ts';
import { renderReminderEmail } from '../../src/notify/index.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';

/**
 * French typography: a narrow no-break space (U+202F) before ":", ";", "?" and "!", never a plain
 * space (a line could break before the sign) nor none. Checked on every text literal of the French
 * words — the pages' (src/i18n/fr.ts) and the customers' (src/i18n/customer/fr.ts) — but the SMS,
 * which travel in GSM-7: it has no such space (it would turn the message into UCS-2, twice the
 * segments), so they keep a plain one.
 */

/** Each text literal of the file (strings, template parts), cooked, with its line; the `sms` words left out. */
function frenchTexts(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const texts: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'sms') return;
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      texts.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.text });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

const MISSING = [
  { what: 'a plain or no-break space before the sign', pattern: /[ \u00a0][:;?!]/u },
  { what: 'no space before ; ? !', pattern: /[\p{L})»’][;?!](?=[\s)»]|$)/u },
  { what: 'no space before the colon', pattern: /[\p{L})»][:](?=\s|$)/u },
];

describe('French typography', () => {
  for (const file of ['src/i18n/fr.ts', 'src/i18n/customer/fr.ts'])
    it(`${file}: a narrow no-break space before : ; ? !`, () => {
      const texts = frenchTexts(file);
      assert.ok(texts.length > 100, `${file}: its texts are read (${texts.length})`);
      const wrong = texts.flatMap(({ line, text }) =>
        MISSING.filter((m) => m.pattern.test(text)).map((m) => `${file}:${line} ${m.what}: ${text}`),
      );
      assert.deepEqual(wrong, []);
    });

  it('the rule finds what it is for (a plain space, none)', () => {
    assert.ok(MISSING[0]!.pattern.test('Assureur : X'));
    assert.ok(MISSING[1]!.pattern.test('Signer? Oui'));
    assert.ok(MISSING[2]!.pattern.test('Assureur: X'));
    for (const fine of ['Assureur\u202f: X', 'https://example.com', '14:05', 'Signer\u202f?'])
      assert.ok(
        MISSING.every((m) => !m.pattern.test(fine)),
        fine,
      );
  });

  it('labels: "Assureur :" in French with the narrow no-break space, "Insurer:" elsewhere', () => {
    assert.equal(label('fr', customerWords('fr').footer.insurer), 'Assureur\u202f:');
    assert.equal(label('en', customerWords('en').footer.insurer), 'Insurer:');
    assert.equal(label('de', 'Versicherer'), 'Versicherer:');
  });

  it('a French email: every colon after its narrow no-break space (its labels, the link, the insurer)', () => {
    const email = renderReminderEmail({
      language: 'fr',
      brand: 'SkyFly',
      insurer: DEMO_INSURER,
      firstName: null,
      flightNumber: 'AF1234',
      departureDate: '2026-04-01',
      amount: 5_000,
      currency: 'EUR',
      publicUrl: 'https://claims.parasol.example',
      token: 'q3Zk9Vb0T1xYw2cR8mN5pL4sH7dF6gJ0aE-_uI9oP1k',
      dueAt: new Date('2026-04-11T09:30:00Z'),
      now: new Date('2026-04-08T09:30:00Z'),
    });
    assert.ok(email.text.includes('Assureur\u202f: '), email.text);
    assert.doesNotMatch(email.text, /[\p{L}) ]: /u, email.text);
    assert.doesNotMatch(email.subject, /[\p{L}) ]: /u, email.subject);
  });

  it('the pages add no colon of their own after a word ("${…}: "): label() writes it, as French wants', () => {
    const found: string[] = [];
    for (const name of fs.readdirSync('src/web').filter((f) => f.endsWith('.ts'))) {
      const file = `src/web/${name}`;
      const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if ((ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && /^(<\/[a-z]+>)?: /.test(node.text))
          found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.text}`);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    assert.deepEqual(found, []);
  });

  it('the SMS keep a plain space (GSM-7 has no narrow no-break space)', () => {
    const sms = customerWords('fr').sms.claim({
      brand: 'SkyFly',
      insurer: 'Parasol',
      flight: 'AF1',
      date: '12/03/2025',
      what: 'a été annulé',
      amount: '50,00 €',
      link: 'https://x.test/c/t',
    });
    assert.ok(sms.includes('(assuré par Parasol) : '), sms);
    assert.doesNotMatch(sms, /\u202f/);
  });
});
