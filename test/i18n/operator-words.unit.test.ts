import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { en } from '../../src/i18n/en.ts';
import { fr } from '../../src/i18n/fr.ts';
import { ERROR_CODES } from '../../src/platform/errors.ts';
import { RISK_TABLE_V1 } from '../../src/flight/risk-model.ts';
import { DAY_NAMES } from '../../src/risk/risk-model-v2.ts';

/** The operator pages' words (en, fr): a refusal names no one bank file format when either may hold the payout. */
describe("the operator pages' words", () => {
  it('an instructed payout is in a transfer file, pain.001 or NACHA: no language says SEPA alone', () => {
    for (const words of [en, fr] as { problems?: Record<string, unknown> }[])
      for (const code of ['payout_instructed', 'claim_not_voidable']) {
        const text = words.problems?.[code];
        if (typeof text === 'string') assert.doesNotMatch(text, /SEPA/, `${code}: ${text}`);
      }
    assert.match(String((fr.problems as Record<string, unknown>).payout_instructed), /pain\.001 ou NACHA/);
  });
});

/**
 * The pages' words, class-wide: every English word has its French one, of the same kind (a text, a
 * function, a group), and it is French — not the English left in place — but for the words French
 * writes the same (listed, each with its reason). Functions are compared on sample arguments (2 for
 * each): one whose French answer is its English one is listed too. The problems are complete in
 * French (English shows the domain's own detail): every error code has its sentence.
 */
describe("the pages' words, en and fr", () => {
  /** Words French writes as English does, by path. */
  const SAME = new Set([
    'brand', // the product's name
    'nav.configuration',
    'nav.webhooks',
    'active',
    'configTitle',
    'version',
    'at', // "Date"
    'evidenceSource',
    'documentsVersion',
    'documentsUrl', // "URL (https)"
    'webhooksTitle',
    'url',
    'description',
    'contractVersions',
    'claimDesk.action',
    'claimDesk.actionsTitle',
    'adminWebhooks.section',
    'riskModels.version',
    'riskModels.base',
    'reports.commission',
    'agreementVersions.version',
    'agreementVersions.configFields.commissionRate',
    'partnerUsers.actions',
    'riskFactor', // a label it does not know ("2") is kept as the model wrote it
  ]);
  type Node = unknown;
  const sample = (f: (...args: unknown[]) => unknown) => f(...Array.from({ length: f.length }, () => 2));
  function compare(a: Node, b: Node, path: string, out: { missing: string[]; same: string[] }): void {
    if (typeof a === 'string' || typeof a === 'function') {
      if (typeof b !== typeof a) return void out.missing.push(path);
      const [x, y] =
        typeof a === 'function'
          ? [sample(a as (...args: unknown[]) => unknown), sample(b as (...args: unknown[]) => unknown)]
          : [a, b];
      if (x === y) out.same.push(path);
      return;
    }
    if (a && typeof a === 'object') {
      if (!b || typeof b !== 'object') return void out.missing.push(path);
      for (const [key, value] of Object.entries(a))
        compare(value, (b as Record<string, Node>)[key], path ? `${path}.${key}` : key, out);
    }
  }

  it('every English word has its French one, and French words are French but the listed ones', () => {
    const out = { missing: [] as string[], same: [] as string[] };
    compare(en, fr, '', out);
    assert.deepEqual(out.missing, [], 'absent in fr.ts');
    assert.deepEqual(
      out.same.filter((path) => !SAME.has(path)),
      [],
      'identical in fr.ts: translate it, or list it in SAME with its reason',
    );
    assert.deepEqual(
      [...SAME].filter((path) => !out.same.includes(path)),
      [],
      'listed in SAME but translated now: unlist it',
    );
  });

  it('the comparison finds a word missing or left in English', () => {
    const out = { missing: [] as string[], same: [] as string[] };
    compare(
      { a: 'Save', b: { c: 'Cancel' }, d: (n: number) => `${n} days` },
      { a: 'Save', b: {}, d: (n: number) => `${n} days` },
      '',
      out,
    );
    assert.deepEqual(out, { missing: ['b.c'], same: ['a', 'd'] });
  });

  it('every error code has its French sentence', () => {
    const problems = fr.problems as Record<string, string | undefined>;
    assert.deepEqual(
      Object.keys(ERROR_CODES).filter((code) => !problems[code]),
      [],
    );
  });

  it('every word the explanation can name (hauls, seasons, hour bands, days, cap) has its French one', () => {
    const hauls = Object.keys(RISK_TABLE_V1.haul).flatMap((h) => [`${h}-haul`, `${h}-haul (prior)`]);
    const seasons = RISK_TABLE_V1.seasons.map((s) => s.name);
    const bands = RISK_TABLE_V1.hourBands.map((b) => `${b.name} (hour ${b.fromHour})`);
    const days = DAY_NAMES.filter((d) => d !== '');
    const labels = [...hauls, ...seasons, ...bands, ...days, 'cap'];
    assert.equal(labels.length, 6 + 2 + 5 + 7 + 1);
    const english = labels.filter((label) => {
      const french = fr.riskFactor(label);
      return (
        french === label ||
        /\b(haul|hour|prior|winter|summer|night|morning|midday|afternoon|evening|\w+day)\b/.test(french)
      );
    });
    assert.deepEqual(english, [], 'a factor the explanation names with no French word (i18n/fr.ts RISK_WORDS)');
  });

  it("the risk model's factors are named in French, their codes kept", () => {
    const cases: [string, string][] = [
      ['long-haul', 'long-courrier'],
      ['medium-haul (prior)', 'moyen-courrier (a priori)'],
      ['winter', 'hiver'],
      ['midday (hour 10)', 'mi-journée (heure 10)'],
      ['month 12 (prior)', 'mois 12 (a priori)'],
      ['Thursday', 'jeudi'],
      ['hour 18', 'heure 18'],
      ['to JFK', 'vers JFK'],
      ['from JFK', 'depuis JFK'],
      ['OO at SAT', 'OO à SAT'],
      ['OO into LAX', 'OO vers LAX'],
      ['OO123 on SAT–LAX', 'OO123 sur SAT–LAX'],
      ['cap', 'plafond'],
      ['OO', 'OO'],
    ];
    for (const [label, french] of cases) {
      assert.equal(fr.riskFactor(label), french, label);
      assert.equal(en.riskFactor(label), label, label);
    }
  });
});
