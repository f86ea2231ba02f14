import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  agreementAt,
  agreementChanges,
  amendAgreement,
  futureViolations,
  parseEffective,
} from '../../src/partners/amendments.ts';
import type { Agreement } from '../../src/partners/model.ts';
import type { Db } from '../../src/platform/db.ts';
import { DomainError } from '../../src/platform/errors.ts';

/** The pure rules of amendable agreements: the version in force, what changed, future violations, dates. */

const at = (iso: string) => new Date(iso);
const version = (n: number, effective: string, changes: Partial<Agreement> = {}): Agreement => ({
  partnerId: 'p',
  version: n,
  status: 'signed',
  allowedFormulas: ['delay', 'cancellation'],
  currency: 'EUR',
  taxRate: '0.09',
  commissionMin: '0',
  commissionMax: '0.3',
  compensationMin: 1000,
  compensationMax: 50000,
  signedAt: at(effective),
  signedBy: 'operator:test',
  effectiveAt: at(effective),
  reason: n === 1 ? 'original agreement' : 'amended',
  ...changes,
});

describe('amendable agreements, pure rules', () => {
  const v1 = version(1, '2026-01-01T00:00:00Z');
  const v2 = version(2, '2026-06-01T00:00:00Z', { commissionMax: '0.25', allowedFormulas: ['delay'] });
  const v3 = version(3, '2026-09-01T00:00:00Z', { taxRate: '0.2' });

  test('the version in force is the latest already effective; version 1 before its signature; a draft alone', () => {
    assert.equal(agreementAt([v1, v2, v3], at('2026-05-31T23:59:59Z'))?.version, 1);
    assert.equal(agreementAt([v1, v2, v3], at('2026-06-01T00:00:00Z'))?.version, 2);
    assert.equal(agreementAt([v1, v2, v3], at('2027-01-01T00:00:00Z'))?.version, 3);
    assert.equal(agreementAt([v1, v2], at('2025-01-01T00:00:00Z'))?.version, 1);
    const draft = { ...v1, status: 'draft' as const, effectiveAt: null, signedAt: null };
    assert.equal(agreementAt([draft], at('2026-01-01T00:00:00Z')), draft);
    assert.equal(agreementAt([], at('2026-01-01T00:00:00Z')), undefined);
  });

  test('what changed from one version to the next', () => {
    assert.deepEqual(agreementChanges(v1, v2), [
      { field: 'allowedFormulas', from: ['delay', 'cancellation'], to: ['delay'] },
      { field: 'commissionMax', from: '0.3', to: '0.25' },
    ]);
    assert.deepEqual(agreementChanges(v2, v3), [
      { field: 'allowedFormulas', from: ['delay'], to: ['delay', 'cancellation'] },
      { field: 'taxRate', from: '0.09', to: '0.2' },
      { field: 'commissionMax', from: '0.25', to: '0.3' },
    ]);
    assert.deepEqual(agreementChanges(v1, { ...v1, allowedFormulas: ['cancellation', 'delay'] }), []);
  });

  test('a configuration is warned about the scheduled versions that reject it, not the one in force', () => {
    const configuration = {
      formula: 'cancellation' as const,
      delayTiers: [],
      cancellationAmount: 10000,
      commissionRate: '0.28',
    };
    const warnings = futureViolations([v1, v2, v3], configuration, at('2026-02-01T00:00:00Z'));
    assert.deepEqual(
      warnings.map((w) => [w.version, w.errors.map((e) => `${e.field} ${e.code}`)]),
      [[2, ['/formula not_allowed', '/commissionRate out_of_range']]],
      'v3 allows both again',
    );
    assert.deepEqual(futureViolations([v1, v2, v3], configuration, at('2026-07-01T00:00:00Z')), []);
  });

  test('effective dates: a date is 00:00 UTC, today is now, an instant needs its offset', () => {
    const now = at('2026-11-25T10:30:00Z');
    assert.deepEqual(parseEffective('2026-12-01', now), at('2026-12-01T00:00:00Z'));
    assert.equal(parseEffective('2026-11-25', now), now);
    assert.deepEqual(parseEffective('2026-12-01T09:00:00+01:00', now), at('2026-12-01T08:00:00Z'));
    assert.equal(parseEffective('2026-12-01T09:00', now), undefined);
    assert.equal(parseEffective('2026-02-30', now), undefined);
    // an instant that does not exist is refused, not read as another one (2 March, the next day)
    assert.equal(parseEffective('2027-02-30T06:00Z', now), undefined);
    assert.equal(parseEffective('2026-12-01T24:00Z', now), undefined);
    assert.equal(parseEffective('2026-12-01T09:00-13:00', now), undefined);
    assert.equal(parseEffective('2026-12-01T09:00+15:30', now), undefined);
    assert.equal(parseEffective('tomorrow', now), undefined);
  });
});

describe("an amendment's reason", () => {
  const now = at('2026-11-01T10:00:00Z');
  /** Past the checks: the stub database's transaction, opened once every field is good. */
  const pastTheChecks = new Error('past the checks: the transaction opened');
  const db = {
    transaction: () => {
      throw pastTheChecks;
    },
  } as unknown as Db;
  /** The reason's refusal (undefined: the reason passed, the transaction was opened); the check comes before any database access. */
  const reasonError = async (reason: string) => {
    const input = { ...version(2, '2026-12-01T00:00:00Z'), effectiveAt: at('2026-12-01T00:00:00Z'), reason };
    try {
      await amendAgreement(db, 'operator:test', 'p', input, now);
    } catch (error) {
      if (error === pastTheChecks) return undefined;
      if (error instanceof DomainError) return error.extra.errors?.find((e) => e.field === '/reason');
      throw error;
    }
    assert.fail('expected a refusal');
  };

  test('over 500 characters once masked, or 2,000 as typed: too_long naming the 500 kept, like the desk and stop-sales', async () => {
    const tooLong = { field: '/reason', code: 'too_long', message: 'must be at most 500 characters' };
    assert.deepEqual(await reasonError('a'.repeat(2001)), tooLong);
    assert.deepEqual(await reasonError('a'.repeat(2000)), tooLong);
    assert.deepEqual(await reasonError('a'.repeat(501)), tooLong);
    // empty: `required`, as an empty desk or stop-sale reason
    assert.deepEqual(await reasonError(' '), {
      field: '/reason',
      code: 'required',
      message: 'is required: why the agreement is amended',
    });
    assert.equal(await reasonError('a'.repeat(500)), undefined);
  });
});
