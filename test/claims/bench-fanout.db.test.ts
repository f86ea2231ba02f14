import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { benchFanout } from '../../bench/claims.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { openTestDatabase } from '../helper.ts';

/**
 * `npm run bench` writes its contracts set-wise, straight into the tables (bench/claims.ts): nothing but
 * the bench runs that SQL, so a schema change can break it unseen (migration 0054 dropped the clear
 * booking reference and the bench failed for two days). The fan-out measure, run small on the test
 * database, keeps the bench's seeding in step with the schema.
 */
describe('the claims bench on the current schema', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  it('seeds its contracts and opens one claim and one SMS job for each', async () => {
    const [measure] = await benchFanout(database, process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite', [3]);
    assert.equal(measure?.contracts, 3);
    assert.equal(measure?.claims, 3);
    assert.equal(measure?.jobs, 3);
  });
});
