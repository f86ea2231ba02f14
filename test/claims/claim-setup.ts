import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { eventually, FLIGHT, insureFlight, post, type TestPartner } from '../helper.ts';

/** A sandbox contract's SMS as its partner reads them (`GET /sandbox/messages`), oldest first. */
export async function sandboxMessages(app: FastifyInstance, partner: TestPartner, contractNumber: string) {
  const res = await app.inject({
    method: 'GET',
    url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
    headers: partner.auth,
  });
  assert.equal(res.statusCode, 200);
  return (JSON.parse(res.body) as { messages: { body: string; link: string | null }[] }).messages;
}

/**
 * A new sandbox contract on `flightNumber`, its flight reported cancelled: its claim opened and its
 * first message written (the `claims_notify` job run by the test app's worker). Answers the contract,
 * the claim's number and that first message. `returnFlight`: a round trip (the claim on the outbound).
 */
export async function openCancelledFlightClaim(
  app: FastifyInstance,
  partner: TestPartner,
  flightNumber: string,
  o: { returnFlight?: string } = {},
) {
  const c = await insureFlight(app, partner, { flightNumber, ...o });
  const opened = await post(
    app,
    `${FLIGHT}/claims`,
    { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
    partner.auth,
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const [first] = await eventually(async () => {
    const m = await sandboxMessages(app, partner, c.contractNumber);
    return m.length ? m : undefined;
  });
  return { c, claimNumber: opened.body.claimsOpened[0].claimNumber as string, first: first! };
}
