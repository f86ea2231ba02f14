import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  InMemoryOutboxStore,
  OutboxSmsProvider,
  findLink,
  outboxMessageId,
  type OutboxMessage,
  type OutboxStore,
} from '../../src/notify/sms/outbox.ts';
import { SmsRejectedError } from '../../src/notify/sms/sms.ts';
import { renderClaimSms } from '../../src/notify/sms/templates.ts';

const SENT_AT = new Date('2025-03-12T18:40:00Z');

describe('outbox SMS provider', () => {
  it('stores to, body, link and sentAt instead of sending', async () => {
    const store = new InMemoryOutboxStore();
    const outbox = new OutboxSmsProvider({ store, now: () => SENT_AT });
    const sms = renderClaimSms({
      language: 'en',
      brand: 'SkyFly',
      insurer: 'Parasol',
      flightNumber: 'AF1234',
      departureDate: '2025-03-12',
      event: { kind: 'cancelled' },
      amount: 5000,
      currency: 'EUR',
      publicUrl: 'https://parasol.example.com',
      token: 'tok_123',
    });

    const result = await outbox.send({
      to: '+33612345678',
      body: sms.body,
      link: sms.link,
      idempotencyKey: 'claim:c1:sms:1',
    });

    assert.equal(outbox.name, 'outbox');
    assert.deepEqual(result, { providerMessageId: outboxMessageId('claim:c1:sms:1'), status: 'stored' });
    assert.deepEqual(store.messages(), [
      {
        id: result.providerMessageId,
        idempotencyKey: 'claim:c1:sms:1',
        to: '+33612345678',
        body: sms.body,
        link: 'https://parasol.example.com/c/tok_123',
        sentAt: SENT_AT,
      },
    ]);
  });

  it('a retry with the same idempotency key stores nothing new and answers the same id', async () => {
    const store = new InMemoryOutboxStore();
    const outbox = new OutboxSmsProvider({ store, now: () => SENT_AT });
    const msg = { to: '+33612345678', body: 'hello https://p.example/c/abc', idempotencyKey: 'claim:c1:sms:1' };
    const first = await outbox.send(msg);
    const second = await outbox.send(msg);
    await outbox.send({ ...msg, idempotencyKey: 'claim:c1:sms:2' });
    assert.equal(first.providerMessageId, second.providerMessageId);
    assert.equal(store.messages().length, 2);
    assert.equal(store.messages({ to: '+33612345678' }).length, 2);
    assert.equal(store.messages({ to: '+33700000000' }).length, 0);
  });

  it('finds the link in the body when the caller does not give it', async () => {
    const store = new InMemoryOutboxStore();
    await new OutboxSmsProvider({ store }).send({
      to: '+33612345678',
      body: 'Parasol : … le recevoir : https://p.example/c/AbC-_9',
      idempotencyKey: 'k',
    });
    assert.equal(store.messages()[0]?.link, 'https://p.example/c/AbC-_9');
    assert.equal(findLink('no link here'), null);
  });

  it('rejects what Twilio would reject, so sandbox fails like production', async () => {
    const outbox = new OutboxSmsProvider({ store: new InMemoryOutboxStore() });
    await assert.rejects(
      outbox.send({ to: '0612345678', body: 'x', idempotencyKey: 'k' }),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'invalid_number',
    );
    await assert.rejects(outbox.send({ to: '+33612345678', body: '', idempotencyKey: 'k' }), SmsRejectedError);
  });

  it('writes through any OutboxStore (the SQL one comes with the jobs)', async () => {
    const appended: OutboxMessage[] = [];
    const store: OutboxStore = { append: async (m) => void appended.push(m) };
    await new OutboxSmsProvider({ store, now: () => SENT_AT }).send({
      to: '+33612345678',
      body: 'b',
      idempotencyKey: 'k',
    });
    assert.equal(appended.length, 1);
    assert.equal(appended[0]?.link, null);
  });
});
