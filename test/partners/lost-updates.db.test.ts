import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { amendAgreement } from '../../src/partners/amendments.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import * as repo from '../../src/partners/partners-repo.ts';
import { agreementRevision, createPartner, setAgreement, signAgreement } from '../../src/partners/partners.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { DomainError } from '../../src/platform/errors.ts';
import {
  createTestPartner,
  DEFAULT_AGREEMENT,
  DEFAULT_CONFIGURATION,
  openTestDatabase,
  uniqueSlug,
} from '../helper.ts';

/**
 * Lost updates: a save carries the version (the revision) its form was opened from, compared under the
 * partner's terms lock (`lockPartnerTerms`): of two saves from one version the second is refused and
 * writes nothing, even when both run at once.
 */

const actor = 'operator:test';
const DAY = 86_400_000;
const refusedAs = (code: string) => (error: unknown) => error instanceof DomainError && error.code === code;

describe('lost updates: saves from a version another save replaced are refused', () => {
  let handle: DatabaseHandle;
  before(async () => (handle = await openTestDatabase()));
  after(() => handle.close());

  it('configuration: two saves from version 1 — the first is version 2, the second refused and nothing written', async () => {
    const p = await createTestPartner(handle.db);
    const first = await setConfiguration(handle.db, 'user:a', p.id, {
      ...DEFAULT_CONFIGURATION,
      commissionRate: '0.25',
      expectedVersion: 1,
    });
    assert.equal(first.version, 2);
    await assert.rejects(
      setConfiguration(handle.db, 'user:b', p.id, {
        ...DEFAULT_CONFIGURATION,
        commissionRate: '0.1',
        expectedVersion: 1,
      }),
      (error: unknown) =>
        refusedAs('configuration_changed')(error) &&
        (error as DomainError).extra.currentVersion === 2 &&
        (error as DomainError).extra.expectedVersion === 1,
    );
    const versions = await repo.listConfigurations(handle.db, p.id);
    assert.deepEqual(
      versions.map((c) => [c.version, c.commissionRate, c.createdBy]),
      [
        [2, '0.25', 'user:a'],
        [1, DEFAULT_CONFIGURATION.commissionRate, 'operator:test'],
      ],
      'the first save is kept, the second wrote nothing',
    );
    // a save from the current version is written
    const third = await setConfiguration(handle.db, 'user:b', p.id, {
      ...DEFAULT_CONFIGURATION,
      commissionRate: '0.1',
      expectedVersion: 2,
    });
    assert.equal(third.version, 3);
  });

  it('configuration: two saves at once from one version — exactly one is written (the check is under the lock)', async () => {
    const p = await createTestPartner(handle.db);
    const outcomes = await Promise.allSettled(
      ['0.11', '0.12'].map((commissionRate) =>
        setConfiguration(handle.db, `user:${commissionRate}`, p.id, {
          ...DEFAULT_CONFIGURATION,
          commissionRate,
          expectedVersion: 1,
        }),
      ),
    );
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    const refused = outcomes.find((o) => o.status === 'rejected');
    assert.ok(refused && refusedAs('configuration_changed')(refused.reason), String(refused?.reason));
    assert.deepEqual(
      (await repo.listConfigurations(handle.db, p.id)).map((c) => c.version),
      [2, 1],
    );
  });

  it('configuration: a form opened before any configuration expects version 0', async () => {
    const p = await createTestPartner(handle.db, { configuration: null });
    assert.equal(
      (await setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, expectedVersion: 0 })).version,
      1,
    );
    await assert.rejects(
      setConfiguration(handle.db, actor, p.id, { ...DEFAULT_CONFIGURATION, expectedVersion: 0 }),
      refusedAs('configuration_changed'),
    );
  });

  it('amendments: two from version 1 — the first is version 2, the second refused; one from version 2 is signed', async () => {
    const p = await createTestPartner(handle.db);
    const revision = agreementRevision((await repo.listAgreementVersions(handle.db, p.id)).at(-1));
    assert.equal(revision, 'v1');
    const amendment = (commissionMax: string, expectedRevision: string) => ({
      ...DEFAULT_AGREEMENT,
      commissionMax,
      effectiveAt: new Date(Date.now() + 10 * DAY),
      reason: `commission at most ${commissionMax}`,
      expectedRevision,
    });
    assert.equal(
      (await amendAgreement(handle.db, 'operator:a', p.id, amendment('0.25', revision))).agreement.version,
      2,
    );
    await assert.rejects(
      amendAgreement(handle.db, 'operator:b', p.id, amendment('0.2', revision)),
      refusedAs('agreement_changed'),
    );
    const versions = await repo.listAgreementVersions(handle.db, p.id);
    assert.deepEqual(
      versions.map((a) => [a.version, a.commissionMax]),
      [
        [1, DEFAULT_AGREEMENT.commissionMax],
        [2, '0.25'],
      ],
    );
    assert.equal((await amendAgreement(handle.db, 'operator:b', p.id, amendment('0.2', 'v2'))).agreement.version, 3);
  });

  it('draft agreement: two saves from one draft — the second refused, the first kept; a new partner expects "none"', async () => {
    const partner = await createPartner(handle.db, actor, { slug: uniqueSlug('draft'), name: 'Draft' });
    await setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, expectedRevision: 'none' });
    await assert.rejects(
      setAgreement(handle.db, actor, partner.id, { ...DEFAULT_AGREEMENT, expectedRevision: 'none' }),
      refusedAs('agreement_changed'),
    );
    const opened = agreementRevision(await repo.findAgreement(handle.db, partner.id));
    assert.match(opened, /^draft-[0-9a-f]{16}$/);
    await setAgreement(handle.db, 'operator:a', partner.id, {
      ...DEFAULT_AGREEMENT,
      taxRate: '0.2',
      expectedRevision: opened,
    });
    await assert.rejects(
      setAgreement(handle.db, 'operator:b', partner.id, {
        ...DEFAULT_AGREEMENT,
        taxRate: '0.3',
        expectedRevision: opened,
      }),
      refusedAs('agreement_changed'),
    );
    assert.equal((await repo.findAgreement(handle.db, partner.id))?.taxRate, '0.2');
  });

  it('signing: B saves Y and signs; A signs from the page that showed X — refused, not reported signed', async () => {
    const partner = await createPartner(handle.db, actor, { slug: uniqueSlug('sign'), name: 'Sign' });
    await setAgreement(handle.db, 'operator:a', partner.id, { ...DEFAULT_AGREEMENT, taxRate: '0.1' });
    const x = agreementRevision(await repo.findAgreement(handle.db, partner.id));
    await setAgreement(handle.db, 'operator:b', partner.id, {
      ...DEFAULT_AGREEMENT,
      taxRate: '0.2',
      expectedRevision: x,
    });
    const y = agreementRevision(await repo.findAgreement(handle.db, partner.id));
    assert.equal((await signAgreement(handle.db, 'operator:b', partner.id, y)).taxRate, '0.2');
    await assert.rejects(signAgreement(handle.db, 'operator:a', partner.id, x), refusedAs('agreement_changed'));
    // the page that showed Y, sent twice: the terms it showed are those signed
    assert.equal((await signAgreement(handle.db, 'operator:b', partner.id, y)).status, 'signed');
  });
});
