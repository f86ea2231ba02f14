import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeApiKey } from '../../src/partners/api-keys.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import { PartnerDirectory } from '../../src/partners/directory.ts';
import * as repo from '../../src/partners/partners-repo.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { createTestPartner, DEFAULT_CONFIGURATION, openTestDatabase } from '../helper.ts';
import { holdingNextRead } from '../holding-read.ts';

/**
 * The directory's answer after invalidate(): a lookup started before a change (a key revoked, a
 * configuration saved) and finishing after it neither answers the lookups asked after the change
 * nor fills the cache with what it read before.
 */

describe('partner directory after invalidate()', () => {
  let handle: DatabaseHandle;
  before(async () => (handle = await openTestDatabase()));
  after(() => handle.close());

  it('a key revoked while a lookup of it is under way is refused to the lookups asked after', async () => {
    const p = await createTestPartner(handle.db);
    const held = holdingNextRead(handle.db, 'api_keys');
    const directory = new PartnerDirectory(held.db, 60_000);
    const before = directory.authenticate(p.key);
    await held.held; // the key was read, not yet revoked
    const [key] = await repo.listApiKeys(handle.db, p.id);
    await revokeApiKey(handle.db, 'operator:test', p.id, key!.id);
    directory.invalidate(); // what the portal does after revoking, and the change notification
    const after = directory.authenticate(p.key);
    held.release();
    assert.equal((await before)?.revoked, false, 'asked before the revocation');
    assert.equal((await after)?.revoked, true, 'asked after it: not the answer of the lookup under way');
    assert.equal((await directory.authenticate(p.key))?.revoked, true, 'nor cached from it');
  });

  it('terms read before a configuration was saved are not cached after it', async () => {
    const p = await createTestPartner(handle.db);
    const held = holdingNextRead(handle.db, 'partner_configurations');
    const directory = new PartnerDirectory(held.db, 60_000);
    const before = directory.partnerTerms(p.id);
    await held.held;
    const saved = await setConfiguration(handle.db, 'operator:test', p.id, {
      ...DEFAULT_CONFIGURATION,
      commissionRate: '0.25',
    });
    directory.invalidate();
    held.release();
    assert.notEqual((await before).configuration?.version, saved.version, 'read before the save');
    assert.equal((await directory.partnerTerms(p.id)).configuration?.version, saved.version);
  });
});
