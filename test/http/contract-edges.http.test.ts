import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The public contract (API.md and the OpenAPI documents) at its edges, as a partner's developer
 * meets them: identifiers written another way, departure times at the limits of what ISO 8601
 * allows, list errors pointing at the right parameter, and a server that is shutting down.
 */

describe('the public contract at its edges', () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp();
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  const get = async (url: string) => {
    const response = await t.app.inject({ method: 'GET', url, headers: partner.auth });
    return { status: response.statusCode, body: response.json() };
  };

  it('reads a contract number the same way in every operation that takes one (any case, spaces around)', async () => {
    const insured = await insureFlight(t.app, partner, { flightNumber: 'AF9301' });
    for (const written of [insured.contractNumber.toLowerCase(), ` ${insured.contractNumber} `]) {
      const query = encodeURIComponent(written);
      assert.equal((await get(`${FLIGHT}/contracts/${query}`)).status, 200, `GET /contracts/{${written}}`);
      const claims = await post(t.app, `${FLIGHT}/getclaims`, { contractNumber: written }, partner.auth);
      assert.equal(claims.status, 200, `getclaims ${written}: ${JSON.stringify(claims.body)}`);
      const messages = await get(`${FLIGHT}/sandbox/messages?contractNumber=${query}`);
      assert.equal(messages.status, 200, `sandbox/messages ${written}: ${JSON.stringify(messages.body)}`);
    }
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: insured.contractNumber.toLowerCase(), reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.contractNumber, insured.contractNumber);
  });
});
