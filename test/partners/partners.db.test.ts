import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey, KEY_PREFIXES, revokeApiKey } from '../../src/partners/api-keys.ts';
import { sql } from 'kysely';
import { amendAgreement, type AmendmentInput } from '../../src/partners/amendments.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import { setDocuments } from '../../src/partners/documents.ts';
import * as repo from '../../src/partners/partners-repo.ts';
import { createPartner, setAgreement, signAgreement } from '../../src/partners/partners.ts';
import { DEMO_DOCUMENTS, DEMO_PARTNER, seedDemo } from '../../src/partners/seed.ts';
import { PartnerDirectory } from '../../src/partners/directory.ts';
import { verifyPassword } from '../../src/platform/crypto.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import type { DatabaseHandle, Db } from '../../src/platform/db.ts';
import { DomainError } from '../../src/platform/errors.ts';
import {
  createTestPartner,
  DEFAULT_AGREEMENT,
  DEFAULT_CONFIGURATION,
  eventually,
  openTestDatabase,
  uniqueSlug,
  usingPostgres,
} from '../helper.ts';

const actor = 'operator:test';
const fails = (code: string, field?: string) => (error: unknown) =>
  error instanceof DomainError &&
  error.code === code &&
  (!field || (error.extra.errors ?? []).some((e) => e.field === field));

describe('partners, agreements, configuration, keys', () => {
  let handle: DatabaseHandle;
  before(async () => (handle = await openTestDatabase()));
  after(() => handle.close());

  describe('configuration', () => {
    it('is versioned: a new version never changes an earlier one', async () => {
      const p = await createTestPartner(handle.db);
      const v1 = await repo.findCurrentConfiguration(handle.db, p.id);
      const v2 = await setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, commissionRate: '0.25' });
      assert.equal(v2.version, v1!.version + 1);
      const again = await repo.findConfigurationById(handle.db, p.id, v1!.id);
      assert.deepEqual(again, v1);
      assert.equal((await repo.findCurrentConfiguration(handle.db, p.id))!.commissionRate, '0.25');
      assert.equal((await repo.listConfigurations(handle.db, p.id)).length, 2);
    });

    it('is audited with the terms as stored and their currency, not amounts its formula does not pay', async () => {
      const p = await createTestPartner(handle.db);
      const saved = await setConfiguration(handle.db, actor, p.id, {
        formula: 'delay',
        delayTiers: [{ minDelayMinutes: 120, amount: 5000 }],
        cancellationAmount: 20000,
        commissionRate: '0.15',
      });
      assert.equal(saved.cancellationAmount, 0, 'a delay-only formula stores no cancellation amount');
      const audited = await handle.db
        .selectFrom('audit_log')
        .select(['data', 'actor'])
        .where('entity', '=', 'configuration')
        .where('entity_id', '=', saved.id)
        .executeTakeFirstOrThrow();
      assert.equal(audited.actor, actor);
      const data = typeof audited.data === 'string' ? JSON.parse(audited.data) : audited.data;
      assert.deepEqual(data, {
        version: saved.version,
        formula: 'delay',
        delayTiers: [{ minDelayMinutes: 120, amount: 5000 }],
        cancellationAmount: 0,
        commissionRate: saved.commissionRate,
        currency: saved.currency,
      });
      assert.match(data.currency, /^[A-Z]{3}$/, 'the amounts audited with their currency');
    });

    it('documents: concurrent attachments each get a version of their own, none a 500', async () => {
      // two operators attaching a pack at once: on PostgreSQL both read the same last version and the
      // second insert broke the (partner, version) key
      const p = await createTestPartner(handle.db);
      const v1 = (await repo.findDocuments(handle.db, p.id))?.version ?? 0;
      const saved = await Promise.all(
        ['IPID-A', 'IPID-B', 'IPID-C', 'IPID-D'].map((version) =>
          setDocuments(handle.db, actor, p.id, { ...DEMO_DOCUMENTS, ipid: { ...DEMO_DOCUMENTS.ipid, version } }),
        ),
      );
      assert.deepEqual(
        saved.map((s) => s.version).sort((a, b) => a - b),
        [1, 2, 3, 4].map((n) => v1 + n),
      );
      assert.equal((await repo.listDocuments(handle.db, p.id)).length, v1 + 4);
    });

    it('takes concurrent saves one after the other: each a version of its own, none refused', async () => {
      // two users of the console saving at once (or the console and the CLI): on PostgreSQL both read the
      // same last version, and the second insert broke the (partner, version) key — a 500 page
      const p = await createTestPartner(handle.db);
      const v1 = (await repo.findCurrentConfiguration(handle.db, p.id))!.version;
      const saved = await Promise.all(
        ['0.1', '0.11', '0.12', '0.13', '0.14'].map((commissionRate) =>
          setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, commissionRate }),
        ),
      );
      assert.deepEqual(
        saved.map((s) => s.version).sort((a, b) => a - b),
        [1, 2, 3, 4, 5].map((n) => v1 + n),
      );
      assert.equal((await repo.listConfigurations(handle.db, p.id)).length, 6);
    });

    it('is checked against the agreement, naming each field', async () => {
      const p = await createTestPartner(handle.db, {
        agreement: { allowedFormulas: ['delay'] },
        configuration: { formula: 'delay' },
      });
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, formula: 'cancellation' }),
        fails('configuration_out_of_bounds', '/formula'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, {
          ...DEFAULT_CONFIGURATION,
          formula: 'delay',
          commissionRate: '0.31',
        }),
        fails('configuration_out_of_bounds', '/commissionRate'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, formula: 'delay', commissionRate: 'abc' }),
        fails('configuration_out_of_bounds', '/commissionRate'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, {
          ...DEFAULT_CONFIGURATION,
          formula: 'delay',
          commissionRate: '0.123456',
        }),
        fails('configuration_out_of_bounds', '/commissionRate'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, {
          ...DEFAULT_CONFIGURATION,
          formula: 'delay',
          delayTiers: [
            { minDelayMinutes: 180, amount: 10_000 },
            { minDelayMinutes: 120, amount: 5_000 },
          ],
        }),
        fails('configuration_out_of_bounds', '/delayTiers/1/minDelayMinutes'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, {
          ...DEFAULT_CONFIGURATION,
          formula: 'delay',
          delayTiers: [
            { minDelayMinutes: 120, amount: 10_000 },
            { minDelayMinutes: 180, amount: 5_000 },
          ],
        }),
        fails('configuration_out_of_bounds', '/delayTiers/1/amount'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, {
          ...DEFAULT_CONFIGURATION,
          formula: 'delay',
          delayTiers: [{ minDelayMinutes: 120, amount: 999_999 }],
        }),
        fails('configuration_out_of_bounds', '/delayTiers/0/amount'),
      );
      await assert.rejects(
        setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, formula: 'delay', delayTiers: [] }),
        fails('configuration_out_of_bounds', '/delayTiers'),
      );
      const ok = await setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, formula: 'delay' });
      assert.equal(ok.cancellationAmount, 0, 'what the formula does not cover is not stored');
    });

    it('a partner name, the fallback brand of every SMS, email and page, hides no character', async () => {
      for (const name of ['Sky\u202eylF', 'Sky\u200bFly', 'SkyFly \u2708\ufe0f', 'Sky\tFly', 'Sky\u200dFly']) {
        await assert.rejects(
          createPartner(handle.db, actor, { slug: uniqueSlug(), name }),
          (error: unknown) =>
            error instanceof DomainError &&
            error.code === 'validation_failed' &&
            JSON.stringify(error.extra.errors) ===
              JSON.stringify([
                {
                  field: '/name',
                  code: 'invalid_format',
                  message: 'must not contain a control or invisible character (a line break, a tab, a direction mark)',
                },
              ]),
          JSON.stringify(name),
        );
      }
      const taken = await createPartner(handle.db, actor, { slug: uniqueSlug(), name: ' SkyFly ✈ \n' });
      assert.equal(taken.name, 'SkyFly ✈', 'checked and stored trimmed');
    });

    it('needs an agreement first', async () => {
      const partner = await createPartner(handle.db, actor, { slug: uniqueSlug(), name: 'No agreement' });
      await assert.rejects(
        setConfiguration(handle.db, actor, partner.id, DEFAULT_CONFIGURATION),
        fails('agreement_missing'),
      );
    });
  });

  describe('agreements', () => {
    it('are set while draft, signed once, then frozen', async () => {
      const partner = await createPartner(handle.db, actor, { slug: uniqueSlug(), name: 'Agreement' });
      await assert.rejects(
        setAgreement(handle.db, actor, partner.id, {
          ...DEFAULT_AGREEMENT,
          commissionMin: '0.5',
          commissionMax: '0.2',
        }),
        fails('validation_failed', '/commissionMax'),
      );
      await assert.rejects(
        setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, currency: 'euro' }),
        fails('validation_failed', '/currency'),
      );
      // three capitals that are no currency: its minor unit is unknown, so are all its amounts
      await assert.rejects(
        setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, currency: 'ABC' }),
        fails('validation_failed', '/currency'),
      );
      // an ISO code no bank transfer carries: its customers could never be paid (docs/payouts.md, "Currencies")
      for (const currency of ['XDR', 'HRK'])
        await assert.rejects(
          setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, currency }),
          fails('validation_failed', '/currency'),
        );
      // a claim pays the bound for each of up to 9 passengers in one transfer: a USD payout above a
      // NACHA entry's 99999999.99, an EUR one above SEPA's 999999999.99, would be left out of every file
      for (const [currency, most] of [
        ['USD', 1_111_111_111],
        ['EUR', 11_111_111_111],
      ] as const) {
        await assert.rejects(
          setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, currency, compensationMax: most + 1 }),
          (error: unknown) => {
            const found = (error as DomainError).extra.errors?.find((e) => e.field === '/compensationMax');
            assert.match(found?.message ?? '', /at most \d+\.\d\d (USD|EUR): .* 9 passengers/, JSON.stringify(error));
            return true;
          },
        );
        const atMost = await setAgreement(handle.db, actor, partner.id, {
          ...DEFAULT_AGREEMENT,
          currency,
          compensationMax: most,
        });
        assert.equal(atMost.compensationMax, most, `${currency}: the largest bound one transfer carries is accepted`);
      }
      // a cross-border currency: what its pain.001 takes, a safe integer of minor units, for 9 passengers
      await setAgreement(handle.db, actor, partner.id, {
        ...DEFAULT_AGREEMENT,
        currency: 'GBP',
        compensationMax: 2_000_000_000,
      });
      await assert.rejects(
        setAgreement(handle.db, actor, partner.id, {
          ...DEFAULT_AGREEMENT,
          currency: 'JPY',
          compensationMax: Math.floor(Number.MAX_SAFE_INTEGER / 9) + 1,
        }),
        (error: unknown) => {
          const found = (error as DomainError).extra.errors?.find((e) => e.field === '/compensationMax');
          assert.match(found?.message ?? '', /at most 1000799917193443 JPY: .* 9 passengers/, JSON.stringify(error));
          return true;
        },
      );
      // a draft saved before the cap existed is checked again when signed, not signed as it is
      await setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, currency: 'USD' });
      await handle.db
        .updateTable('agreements')
        .set({ compensation_max: 2_000_000_000 })
        .where('partner_id', '=', partner.id)
        .execute();
      await assert.rejects(signAgreement(handle.db, actor, partner.id), fails('validation_failed', '/compensationMax'));
      const draft = await setAgreement(handle.db, actor, partner.id, DEFAULT_AGREEMENT);
      assert.equal(draft.status, 'draft');
      const signed = await signAgreement(handle.db, actor, partner.id);
      assert.equal(signed.status, 'signed');
      assert.equal(signed.signedBy, actor);
      assert.deepEqual(await signAgreement(handle.db, actor, partner.id), signed, 'signing twice changes nothing');
      await assert.rejects(
        setAgreement(handle.db, actor, partner.id, DEFAULT_AGREEMENT),
        fails('agreement_already_signed'),
      );
    });
  });

  describe('the partner’s terms change one writer at a time', () => {
    const DAY = 86_400_000;
    /** v2 of DEFAULT_AGREEMENT: commission at most 0.25 instead of 0.3, from tomorrow. */
    const amendment = (reason = 'renewal'): AmendmentInput => ({
      ...DEFAULT_AGREEMENT,
      commissionMax: '0.25',
      effectiveAt: new Date(Date.now() + DAY),
      reason,
    });

    /**
     * Holds the partner's lock, writes in that transaction, starts `call` and commits once `call`
     * waits on a lock: `call` then reads what was written (PostgreSQL; PGlite runs one at a time).
     */
    async function whileLocked<T>(partnerId: string, write: (trx: Db) => Promise<unknown>, call: () => Promise<T>) {
      let pending: Promise<T> | undefined;
      await handle.db.transaction().execute(async (trx) => {
        await repo.lockPartnerTerms(trx, partnerId);
        await write(trx);
        pending = call();
        await eventually(async () => {
          const { rows } = await sql<{ waiting: number }>`
            SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(handle.db);
          return rows[0]!.waiting > 0 ? true : undefined;
        });
      });
      return pending!;
    }

    it('a reason far too long is refused before it is masked (the masks are slow on 16,000 letters)', async () => {
      const p = await createTestPartner(handle.db);
      await assert.rejects(
        amendAgreement(handle.db, actor, p.id, amendment('a'.repeat(16_000))),
        fails('validation_failed', '/reason'),
      );
    });

    it('concurrent amendments each sign a version of their own, none refused', async () => {
      // on PostgreSQL both read the same latest version and the second broke the (partner, version) key
      // one effective instant for all four: a later version may not take effect before an earlier one,
      // so instants read a few milliseconds apart made the one committed last a refusal (flaky)
      const p = await createTestPartner(handle.db);
      const effectiveAt = new Date(Date.now() + DAY);
      const amended = await Promise.all(
        ['a', 'b', 'c', 'd'].map((reason) =>
          amendAgreement(handle.db, actor, p.id, { ...amendment(reason), effectiveAt }),
        ),
      );
      assert.deepEqual(amended.map((a) => a.agreement.version).sort(), [2, 3, 4, 5]);
    });

    it(
      'an amendment waits for a configuration being saved and lists what that configuration breaks',
      { skip: !usingPostgres && 'PGlite runs one transaction at a time' },
      async () => {
        // without the lock the amendment read the previous configuration (within its bounds) and said
        // nothing, while the save, checked against the previous agreement, warned of nothing either
        const p = await createTestPartner(handle.db);
        const { violations } = await whileLocked(
          p.id,
          (trx) =>
            repo.insertConfiguration(trx, {
              partnerId: p.id,
              formula: DEFAULT_CONFIGURATION.formula,
              delayTiers: DEFAULT_CONFIGURATION.delayTiers,
              cancellationAmount: DEFAULT_CONFIGURATION.cancellationAmount,
              commissionRate: '0.28',
              currency: 'EUR',
              createdBy: actor,
            }),
          () => amendAgreement(handle.db, actor, p.id, amendment()),
        );
        assert.deepEqual(
          violations.map((v) => v.field),
          ['/commissionRate'],
        );
      },
    );

    it(
      'setting and signing a draft agreement wait for the partner’s lock too',
      { skip: !usingPostgres && 'PGlite runs one transaction at a time' },
      async () => {
        const partner = await createPartner(handle.db, actor, { slug: uniqueSlug(), name: 'Draft' });
        const draft = await whileLocked(
          partner.id,
          async () => undefined,
          () => setAgreement(handle.db, actor, partner.id, DEFAULT_AGREEMENT),
        );
        assert.equal(draft.status, 'draft');
        const signed = await whileLocked(
          partner.id,
          async () => undefined,
          () => signAgreement(handle.db, actor, partner.id),
        );
        assert.equal(signed.status, 'signed');
      },
    );
  });

  describe('API keys', () => {
    it('are prefixed by environment, stored hashed, shown once', async () => {
      const p = await createTestPartner(handle.db);
      const created = await createApiKey(handle.db, actor, {
        partnerId: p.id,
        environment: 'production',
        label: 'checkout',
      });
      assert.ok(created.plaintext.startsWith(KEY_PREFIXES.production));
      assert.ok(created.plaintext.length >= 40);
      const rows = await handle.db.selectFrom('api_keys').selectAll().where('partner_id', '=', p.id).execute();
      for (const row of rows) {
        assert.ok(!Object.values(row).includes(created.plaintext), 'the plaintext is not stored');
        assert.ok(!Object.values(row).includes(p.key));
      }
      const listed = await repo.listApiKeys(handle.db, p.id);
      assert.equal(
        listed.find((k) => k.id === created.key.id)!.display,
        `${created.plaintext.slice(0, 13)}…${created.plaintext.slice(-4)}`,
      );
    });

    it('keep their label with the personal data it quotes masked (free text)', async () => {
      const p = await createTestPartner(handle.db);
      const created = await createApiKey(handle.db, actor, {
        partnerId: p.id,
        environment: 'sandbox',
        label: 'jane.doe@partner.example laptop, +33 6 12 34 56 78',
      });
      assert.equal(created.key.label, '[email] laptop, [phone]');
      const audited = await handle.db
        .selectFrom('audit_log')
        .select('data')
        .where('entity', '=', 'api_key')
        .where('entity_id', '=', created.key.id)
        .executeTakeFirstOrThrow();
      assert.doesNotMatch(JSON.stringify(audited.data), /jane|12 34/);
    });

    it('are revocable, and record their last use off the request path', async () => {
      const p = await createTestPartner(handle.db);
      const directory = new PartnerDirectory(handle.db, 0);
      const entry = await directory.authenticate(p.key);
      assert.equal(entry?.caller.partnerId, p.id);
      await directory.flushUsage();
      const [key] = await repo.listApiKeys(handle.db, p.id);
      assert.ok(key!.lastUsedAt instanceof Date);
      const revoked = await revokeApiKey(handle.db, actor, p.id, key!.id);
      assert.ok(revoked.revokedAt);
      assert.deepEqual(await revokeApiKey(handle.db, actor, p.id, key!.id), revoked, 'revoking twice changes nothing');
      assert.equal((await directory.authenticate(p.key))?.revoked, true);
      const other = await createTestPartner(handle.db);
      await assert.rejects(
        revokeApiKey(handle.db, actor, other.id, key!.id),
        fails('api_key_not_found'),
        "another partner's key is not found",
      );
      await assert.rejects(revokeApiKey(handle.db, actor, p.id, '-'.repeat(36)), fails('api_key_not_found'));
    });

    it('need a signed agreement outside sandbox', async () => {
      const p = await createTestPartner(handle.db, { signed: false });
      await assert.rejects(
        createApiKey(handle.db, actor, { partnerId: p.id, environment: 'preproduction' }),
        fails('agreement_not_signed'),
      );
      const sandbox = await createApiKey(handle.db, actor, { partnerId: p.id, environment: 'sandbox' });
      assert.ok(sandbox.plaintext.startsWith(KEY_PREFIXES.sandbox));
    });
  });
});

describe('demo seed', () => {
  it('creates Demo Air on an empty database, with the configured key and portal user', async (t) => {
    const handle = await openTestDatabase(t, { empty: true });
    const key = 'demo_key_for_tests_0123456789';
    const result = await seedDemo(handle.db, {
      demo: { apiKey: key, email: 'Demo@Example.com', password: 'demo password 123' },
      insurer: DEMO_INSURER,
    });
    assert.ok(result);
    assert.equal(result.generatedApiKey, undefined, 'a configured key is not printed');
    const partner = await repo.findPartner(handle.db, DEMO_PARTNER.slug);
    assert.equal(partner?.name, 'Demo Air');
    const agreement = await repo.findAgreement(handle.db, partner!.id);
    assert.equal(agreement?.status, 'signed');
    assert.deepEqual([...agreement!.allowedFormulas].sort(), ['cancellation', 'delay', 'delay_and_cancellation']);
    assert.equal(agreement?.currency, 'EUR');
    assert.deepEqual(await repo.listSubscriptions(handle.db, partner!.id), ['demo', 'flight-delay', 'policy-admin']);
    assert.ok(await repo.findCurrentConfiguration(handle.db, partner!.id));
    const directory = new PartnerDirectory(handle.db, 0);
    assert.equal((await directory.authenticate(key))?.caller.partnerId, partner!.id);
    const user = await handle.db
      .selectFrom('users')
      .selectAll()
      .where('partner_id', '=', partner!.id)
      .executeTakeFirstOrThrow();
    assert.equal(user.email, 'demo@example.com');
    assert.ok(await verifyPassword('demo password 123', user.password_hash!));
    assert.equal(await verifyPassword('wrong password', user.password_hash!), false);
    assert.equal(
      await seedDemo(handle.db, {
        demo: { apiKey: undefined, email: undefined, password: undefined },
        insurer: DEMO_INSURER,
      }),
      undefined,
      'seeds once',
    );
  });

  it('gives Demo Air its documents, and gives them to a Demo Air seeded before documents existed', async (t) => {
    const handle = await openTestDatabase(t, { empty: true });
    // an insurer configured by PARASOL_INSURER_*: the demo pack names it, as the customer's messages do
    const insurer = { ...DEMO_INSURER, legalName: 'Assureur Exemple SA', address: '2 rue Exemple, 69001 Lyon, France' };
    const none = { demo: { apiKey: undefined, email: undefined, password: undefined }, insurer };
    await seedDemo(handle.db, none);
    const partner = (await repo.findPartner(handle.db, DEMO_PARTNER.slug))!;
    const documents = await repo.findDocuments(handle.db, partner.id);
    assert.equal(documents?.version, 1);
    assert.deepEqual(documents?.ipid, DEMO_DOCUMENTS.ipid);
    assert.equal(documents?.insurer.name, 'Assureur Exemple SA');
    assert.equal(documents?.insurer.address, '2 rue Exemple, 69001 Lyon, France');
    assert.equal(documents?.insurer.complaints.email, DEMO_INSURER.email);
    // as if seeded before migration 0022: no documents; the next start gives them, once
    await handle.db.deleteFrom('agreement_documents').where('partner_id', '=', partner.id).execute();
    assert.equal(await seedDemo(handle.db, none), undefined);
    assert.equal((await repo.findDocuments(handle.db, partner.id))?.version, 1);
    await seedDemo(handle.db, none);
    assert.equal((await repo.listDocuments(handle.db, partner.id)).length, 1, 'not again');
  });

  it('generates and reports a random key when none is configured', async (t) => {
    const handle = await openTestDatabase(t, { empty: true });
    const result = await seedDemo(handle.db, {
      demo: { apiKey: undefined, email: undefined, password: undefined },
      insurer: DEMO_INSURER,
    });
    assert.ok(result?.generatedApiKey?.startsWith(KEY_PREFIXES.sandbox));
  });
});
