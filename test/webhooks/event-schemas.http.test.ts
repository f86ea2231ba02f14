import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { deliverWebhook, type DeliveryDeps } from '../../src/webhooks/webhook-delivery.ts';
import {
  emitClaimWebhookEvents,
  emitCustomerUnreachable,
  WEBHOOK_EVENT_TYPES,
  TEST_EVENT_TYPE,
  type ClaimWebhookEventType,
} from '../../src/webhooks/webhook-events.ts';
import { addEndpoint, removeEndpoint, sendTestEvent, type WebhookDeps } from '../../src/webhooks/webhooks.ts';
import { buildTestApp, createTestPartner, FLIGHT, insureFlight, post, type TestApp } from '../helper.ts';
import { Receiver } from './receiver.ts';

/**
 * A partner generating code from the OpenAPI document's `webhooks` section: every event type the
 * platform sends, emitted by its real emitter and delivered to a receiver, matches its published
 * schema — and carries no member the schema does not name (checked here with every object closed:
 * the published schemas stay open, so that adding a member later breaks no receiver).
 */

let t: TestApp;
let receiver: Receiver;
let deps: WebhookDeps;

before(async () => {
  t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_WORKERS: 'off' } });
  receiver = await Receiver.start();
  const { jobs, keys } = t.app.parasol;
  deps = { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() };
});
after(async () => {
  await receiver.close();
  await t.close();
});

/** The schema with every object closed: a member it does not name fails. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = key === 'examples' ? value : closed(value);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

describe('every webhook event against its published schema', () => {
  it('each type, emitted by its emitter and delivered, matches the OpenAPI webhooks entry, with no undocumented member', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: `${FLIGHT}/openapi.json` })).json();
    const documented = Object.keys(doc.webhooks as Record<string, unknown>).sort();
    assert.deepEqual(documented, [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].sort(), 'one entry per type sent');

    const partner = await createTestPartner(t.db);
    const path = `/schemas/${process.pid}`;
    const hook = await addEndpoint(
      deps,
      { actor: 'operator:test', partnerId: partner.id, environment: 'sandbox' },
      { url: receiver.url(path) },
    );
    receiver.secret(path, hook.secret);
    try {
      const seq = 1000 + Math.floor(Math.random() * 8000);
      // contract.created, contract.changed (one leg cancelled), claim.opened, contract.cancelled
      const insured = await insureFlight(t.app, partner, {
        flightNumber: `AF${seq}`,
        returnFlight: `AF${seq + 1}`,
        days: 30,
      });
      const part = await post(
        t.app,
        `${FLIGHT}/contracts/${insured.contractNumber}/partial-cancellation`,
        { leg: 1, reason: 'customer_request' },
        partner.auth,
      );
      assert.equal(part.status, 200, JSON.stringify(part.body));
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        {
          flightNumber: insured.flightNumber,
          departureDate: insured.departureDate,
          status: 'delayed',
          delayMinutes: 200,
        },
        partner.auth,
      );
      assert.ok(opened.status < 300, JSON.stringify(opened.body));
      const other = await insureFlight(t.app, partner, { flightNumber: `AF${seq + 2}`, days: 31 });
      const cancel = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: other.contractNumber, reason: 'customer_request' },
        partner.auth,
      );
      assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
      // the claim.* events of later stages, by the emitters their use cases call
      const claim = await t.db
        .selectFrom('claims as cl')
        .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
        .select('cl.id')
        .where('c.contract_number', '=', insured.contractNumber)
        .executeTakeFirstOrThrow();
      const later: ClaimWebhookEventType[] = [
        'claim.bank_details_received',
        'claim.paid',
        'claim.expired',
        'claim.failed',
        'claim.voided',
      ];
      await t.db.transaction().execute(async (trx) => {
        for (const type of later) await emitClaimWebhookEvents(trx, t.app.parasol.jobs, type, [claim.id], new Date());
        await emitCustomerUnreachable(
          trx,
          t.app.parasol.jobs,
          claim.id,
          { channel: 'sms', message: 'opened', deliveryStatus: 'undelivered', errorCode: 30003 },
          new Date(),
        );
        // the customer's mail server refused the address (SMTP 550 5.1.1)
        await emitCustomerUnreachable(
          trx,
          t.app.parasol.jobs,
          claim.id,
          { channel: 'email', message: 'reminder', deliveryStatus: 'rejected', errorCode: 550 },
          new Date(),
        );
      });
      await sendTestEvent(deps, { actor: 'operator:test' }, hook.endpoint.id);

      const deliveries = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', hook.endpoint.id)
        .execute();
      const delivery: DeliveryDeps = { ...deps, timeoutMs: 60_000 };
      for (const d of deliveries)
        assert.equal(await deliverWebhook(delivery, { deliveryId: d.id, attempt: 1 }), 'succeeded');

      const ajv = new Ajv2020({ strict: false, allErrors: true });
      (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
      const received = receiver.received(path);
      for (const request of received) {
        assert.ok(request.verified, `signature verifies: ${request.verifyError}`);
        const body = JSON.parse(request.body) as { type: string; data: object };
        const schema = doc.webhooks[body.type]?.post.requestBody.content['application/json'].schema;
        assert.ok(schema, `${body.type} is documented`);
        const validate = ajv.compile(closed(schema) as object);
        assert.ok(validate(body), `${body.type} matches its schema: ${ajv.errorsText(validate.errors)}`);
        const extra = { ...body, data: { ...body.data, customerEmail: 'ada@example.com' } };
        assert.equal(validate(extra), false, `${body.type}: an undocumented member would be caught`);
      }
      assert.deepEqual(
        received
          .filter((r) => r.payload!.type === 'claim.customer_unreachable')
          .map((r) => (r.payload!.data as { channel: string }).channel)
          .sort(),
        ['email', 'sms'],
        'both channels of claim.customer_unreachable checked against the schema',
      );
      assert.deepEqual(
        [...new Set(received.map((r) => r.payload!.type))].sort(),
        documented,
        'every documented type was sent and checked',
      );
    } finally {
      await removeEndpoint(deps, { actor: 'operator:test' }, hook.endpoint.id);
    }
  });
});
