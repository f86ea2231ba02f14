import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDocuments } from '../../src/partners/documents.ts';
import { createPartner } from '../../src/partners/partners.ts';
import { demoDocuments } from '../../src/partners/seed.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import type { Db } from '../../src/platform/db.ts';
import { DomainError, type FieldError } from '../../src/platform/errors.ts';

/** The field errors a call refuses with (validation_failed), as field → code. */
async function refusal(run: () => unknown): Promise<Record<string, string>> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof DomainError && error.code === 'validation_failed', String(error));
    const errors = (error.extra?.errors ?? []) as FieldError[];
    return Object.fromEntries(errors.map((e) => [e.field, e.code]));
  }
  assert.fail('not refused');
}

/** Checked before any database use: no database is given. */
const noDb = undefined as unknown as Db;

describe('a required text: empty is `required`, too long is `too_long`', () => {
  const documents = demoDocuments(DEMO_INSURER);

  it('the compliance pack', async () => {
    const input = {
      ...documents,
      ipid: { ...documents.ipid, version: '  ' },
      insurer: { ...documents.insurer, name: 'x'.repeat(201), address: '' },
    };
    assert.deepEqual(await refusal(() => checkDocuments(input)), {
      '/ipid/version': 'required',
      '/insurer/name': 'too_long',
      '/insurer/address': 'required',
    });
  });

  it("a partner's name", async () => {
    assert.deepEqual(await refusal(() => createPartner(noDb, 'operator:test', { slug: 'a-partner', name: ' ' })), {
      '/name': 'required',
    });
    assert.deepEqual(
      await refusal(() => createPartner(noDb, 'operator:test', { slug: 'a-partner', name: 'x'.repeat(201) })),
      { '/name': 'too_long' },
    );
  });
});
