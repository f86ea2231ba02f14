import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import {
  SmsPlatformTemporaryError,
  SmsRejectedError,
  SmsRetryableError,
  type SmsMessage,
} from '../../src/notify/sms/sms.ts';
import { TwilioSmsProvider, twilioFailureClass, type TwilioOptions } from '../../src/notify/sms/twilio.ts';
import { parseRetryAfter } from '../../src/platform/retry-after.ts';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  INVALID_NUMBER,
  MESSAGING_SERVICE_SID,
  NOT_MOBILE_NUMBER,
  startFakeTwilio,
  type FakeTwilio,
} from './twilio-fake.ts';
import { twilioValidators } from './twilio-spec.ts';

const TO = '+33612345678';
const FROM = '+14155552345';
const BODY =
  'Parasol: your flight AF1234 of 12 Mar 2025 was cancelled. Your insurance pays you €50.00. Enter your bank details to receive it: https://parasol.example.com/c/abc';

async function setup(
  t: TestContext,
  options: Partial<TwilioOptions> = {},
): Promise<{ fake: FakeTwilio; twilio: TwilioSmsProvider }> {
  const fake = await startFakeTwilio(t);
  const twilio = new TwilioSmsProvider({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: FROM,
    baseUrl: fake.baseUrl,
    timeoutMs: 60_000,
    ...options,
  }); // real answers: all the time a loaded machine needs
  // Whatever the case, neither side may leave Twilio's documented shapes.
  t.after(() => assert.deepEqual(fake.problems, []));
  return { fake, twilio };
}

const message = (to = TO) => ({ to, body: BODY, idempotencyKey: 'claim:1:sms:1' });

describe("Twilio adapter against a fake Messages API built from Twilio's OpenAPI document", () => {
  it('the document is OpenAPI 3.0.1 and its schemas are strict enough to catch a wrong answer', () => {
    const v = twilioValidators();
    assert.equal(v.openapiVersion, '3.0.1');
    assert.equal(v.message({ sid: 'SM123', status: 'queued' }), false, 'sid pattern');
    assert.equal(v.message({ status: 'sending-soon' }), false, 'status enum');
    assert.equal(v.message({ sid: null, status: 'queued', error_code: null }), true, 'nullable fields');
    assert.equal(v.message({ made_up: true }), false, 'no invented fields');
    assert.equal(v.request({ To: TO, From: FROM, Body: 'x', Unknown: 'y' }), false);
  });

  it('sends To, From and Body form-encoded with basic auth, and returns the message sid and status', async (t) => {
    const { fake, twilio } = await setup(t);
    const result = await twilio.send(message());

    assert.match(result.providerMessageId, /^SM[0-9a-f]{32}$/);
    assert.equal(result.status, 'queued');
    assert.equal(fake.requests.length, 1);
    const [seen] = fake.requests;
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    assert.equal(seen?.contentType, 'application/x-www-form-urlencoded');
    const [scheme, credentials] = (seen?.authorization ?? '').split(' ');
    assert.equal(scheme, 'Basic');
    assert.equal(Buffer.from(credentials ?? '', 'base64').toString(), `${ACCOUNT_SID}:${AUTH_TOKEN}`);
    assert.deepEqual(seen?.form, { To: TO, From: FROM, Body: BODY });
    assert.equal(twilioValidators().message(fake.answers[0]?.body), true);
  });

  it('uses MessagingServiceSid instead of From, and StatusCallback when configured', async (t) => {
    const { fake, twilio } = await setup(t, {
      from: undefined,
      messagingServiceSid: MESSAGING_SERVICE_SID,
      statusCallbackUrl: 'https://parasol.example.com/twilio/status',
    });
    const result = await twilio.send(message());
    assert.equal(result.status, 'accepted');
    assert.deepEqual(fake.requests[0]?.form, {
      To: TO,
      MessagingServiceSid: MESSAGING_SERVICE_SID,
      Body: BODY,
      StatusCallback: 'https://parasol.example.com/twilio/status',
    });
  });

  it('an invalid number (400, Twilio 21211) is rejected, without the number in the error', async (t) => {
    const { fake, twilio } = await setup(t);
    const error = await twilio.send(message(INVALID_NUMBER)).then(
      () => assert.fail('should reject'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof SmsRejectedError);
    assert.equal(error.reason, 'invalid_number');
    assert.equal(error.httpStatus, 400);
    assert.equal(error.providerCode, 21211);
    assert.equal(error.moreInfo, 'https://www.twilio.com/docs/errors/21211');
    assert.doesNotMatch(error.message, /5005550001/);
    assert.equal(twilioValidators().error(fake.answers[0]?.body), true);
  });

  it('a number that is not a mobile (400, Twilio 21614) is rejected as invalid_number', async (t) => {
    const { twilio } = await setup(t);
    await assert.rejects(
      twilio.send(message(NOT_MOBILE_NUMBER)),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'invalid_number' && e.providerCode === 21614,
    );
  });

  it("a recipient who cannot receive it (21610 unsubscribed, 21612 unreachable) is recipient_refused; the platform's own sender or content (21606, 21602) is rejected", async (t) => {
    const { fake, twilio } = await setup(t);
    for (const [code, reason] of [
      [21610, 'recipient_refused'],
      [21612, 'recipient_refused'],
      [21606, 'rejected'],
      [21602, 'rejected'],
      // no permission to text the number's country (the account's geographic permissions): the platform's
      [21408, 'rejected'],
    ] as const) {
      fake.override = {
        status: 400,
        body: { code, message: `error ${code}`, more_info: `https://www.twilio.com/docs/errors/${code}`, status: 400 },
      };
      await assert.rejects(
        twilio.send(message()),
        (e: unknown) => e instanceof SmsRejectedError && e.reason === reason && e.providerCode === code,
        String(code),
      );
    }
  });

  it('wrong credentials (401, Twilio 20003) are rejected as unauthorized', async (t) => {
    const { twilio } = await setup(t, { authToken: 'not-the-token' });
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) =>
        e instanceof SmsRejectedError &&
        e.reason === 'unauthorized' &&
        e.httpStatus === 401 &&
        e.providerCode === 20003,
    );
  });

  it('a server error (500) is retryable', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = {
      status: 500,
      body: {
        code: 20500,
        message: 'Internal Server Error',
        more_info: 'https://www.twilio.com/docs/errors/20500',
        status: 500,
      },
    };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) =>
        e instanceof SmsRetryableError &&
        e.reason === 'server_error' &&
        e.httpStatus === 500 &&
        e.providerCode === 20500,
    );
  });

  it('a 503 with Retry-After is retryable, after the given delay', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = {
      status: 503,
      body: {
        code: 20503,
        message: 'Service Unavailable',
        more_info: 'https://www.twilio.com/docs/errors/20503',
        status: 503,
      },
      headers: { 'retry-after': '2' },
    };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'server_error' && e.retryAfterMs === 2000,
    );
  });

  it('a 502 page from a proxy (no JSON) is retryable', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = { status: 502, rawBody: '<html><body>Bad Gateway</body></html>' };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'server_error' && e.providerCode === undefined,
    );
  });

  it('a 201 without a message sid is retryable (invalid_response)', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = { status: 200, rawBody: 'OK' };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'invalid_response',
    );
  });

  it('a 201 whose body runs past the bound read is retryable (invalid_response), the rest unread', async () => {
    let chunks = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunks++;
        controller.enqueue(new TextEncoder().encode(chunks === 1 ? '{"sid":"SM' : '0'.repeat(65_536)));
      },
    });
    const twilio = new TwilioSmsProvider({
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      from: FROM,
      fetch: async () => new Response(endless, { status: 201, headers: { 'content-type': 'application/json' } }),
    });
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'invalid_response',
    );
    assert.ok(chunks < 40, `${chunks} chunks read`);
  });

  it('too many requests (429, Twilio 20429) is retryable, with Retry-After', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = {
      status: 429,
      body: {
        code: 20429,
        message: 'Too Many Requests',
        more_info: 'https://www.twilio.com/docs/errors/20429',
        status: 429,
      },
      headers: { 'retry-after': '7' },
    };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) =>
        e instanceof SmsRetryableError &&
        e.reason === 'rate_limited' &&
        e.retryAfterMs === 7000 &&
        e.providerCode === 20429,
    );
  });

  it('no answer within the timeout is retryable', async (t) => {
    const { fake, twilio } = await setup(t, { timeoutMs: 150 });
    fake.override = 'hang';
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'timeout',
    );
    assert.equal(fake.requests.length, 1);
  });

  it('a 201 whose body trickles in and never ends is a timeout (retryable)', { timeout: 5000 }, async (t) => {
    const { fake, twilio } = await setup(t, { timeoutMs: 150 });
    fake.override = 'trickle';
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'timeout',
    );
    assert.equal(fake.requests.length, 1);
  });

  it('a refused connection is retryable (unreachable: nothing was sent)', async () => {
    const port = await closedPort();
    const twilio = new TwilioSmsProvider({
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      from: FROM,
      baseUrl: `http://127.0.0.1:${port}`,
    });
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'unreachable',
    );
  });

  it('a message created already failed is refused by its code, as an error answer would be', async (t) => {
    const { fake, twilio } = await setup(t);
    const created = (code: number) => ({
      status: 201,
      body: {
        account_sid: ACCOUNT_SID,
        sid: `SM${'5'.repeat(32)}`,
        status: 'failed',
        error_code: code,
        error_message: null,
        to: TO,
      },
    });
    fake.override = created(21610);
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'recipient_refused' && e.providerCode === 21610,
    );
    fake.override = created(21211);
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'invalid_number',
    );
    fake.override = created(21606);
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'rejected',
    );
    // the carrier's codes: the recipient's handset or number, else the platform's (filtered, queue overflow)
    for (const [code, reason] of [
      [30003, 'recipient_refused'],
      [30004, 'recipient_refused'],
      [30005, 'invalid_number'],
      [30006, 'invalid_number'],
      [30007, 'rejected'],
      [30008, 'rejected'],
      [39999, 'rejected'], // in no list: the one default, the platform's (twilioFailureClass)
    ] as const) {
      fake.override = created(code);
      await assert.rejects(
        twilio.send(message()),
        (e: unknown) => e instanceof SmsRejectedError && e.reason === reason && e.providerCode === code,
        String(code),
      );
    }
  });

  it("a send answered with Twilio's queue overflow (30001) is the platform's passing failure, a receipt's reading: created already failed, or an error answer", async (t) => {
    const { fake, twilio } = await setup(t);
    // the shape Twilio's document gives a create's answer: a message, its status failed or undelivered
    for (const as of ['failed', 'undelivered'] as const) {
      fake.queueOverflow = { as, times: 1 };
      const error = await twilio.send(message()).catch((e: unknown) => e);
      assert.ok(error instanceof SmsPlatformTemporaryError, String(error));
      const created = fake.messages.at(-1)!;
      assert.deepEqual(
        [error.providerMessageId, error.status, error.providerCode, error.httpStatus],
        [created.sid, as, 30001, 201],
        as,
      );
      assert.equal(created.resource.status, as);
    }
    // an error answer naming the code (Twilio's exception shape): nothing created
    fake.queueOverflow = { as: 'error', times: 1 };
    const answered = await twilio.send(message()).catch((e: unknown) => e);
    assert.ok(answered instanceof SmsPlatformTemporaryError, String(answered));
    assert.deepEqual(
      [answered.providerMessageId, answered.status, answered.providerCode, answered.httpStatus],
      [undefined, undefined, 30001, 400],
    );
    assert.equal(answered.message, 'twilio: HTTP 400 (Twilio 30001): Queue overflow');
    assert.equal(fake.messages.length, 2, 'the error answer created none');
    // the next create goes through
    assert.equal((await twilio.send(message())).status, 'queued');
    // a 429 or a 5xx naming it is still Twilio's rate limit or outage: retried by the queue, Retry-After obeyed
    fake.override = {
      status: 429,
      body: {
        code: 30001,
        message: 'Queue overflow',
        more_info: 'https://www.twilio.com/docs/errors/30001',
        status: 429,
      },
      headers: { 'retry-after': '3' },
    };
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'rate_limited' && e.retryAfterMs === 3000,
    );
  });

  it('a look-up answered with 30001 (4xx) sends anyway, as for any other 4xx', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = {
      status: 400,
      body: {
        code: 30001,
        message: 'Queue overflow',
        more_info: 'https://www.twilio.com/docs/errors/30001',
        status: 400,
      },
    };
    // the override answers the POST too: the send is then the queue overflow itself
    const error = await twilio
      .send({ ...message(), earlierAttemptSince: new Date(Date.now() - 60_000) })
      .catch((e: unknown) => e);
    assert.ok(error instanceof SmsPlatformTemporaryError, String(error));
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['GET', 'POST'],
    );
  });

  it('a number that is not E.164 is rejected before any request', async (t) => {
    const { fake, twilio } = await setup(t);
    await assert.rejects(
      twilio.send(message('0612345678')),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'invalid_number',
    );
    assert.equal(fake.requests.length, 0);
  });

  it('refuses a configuration with both or neither sender', () => {
    assert.throws(
      () => new TwilioSmsProvider({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN }),
      /exactly one of from and messagingServiceSid/,
    );
    assert.throws(
      () =>
        new TwilioSmsProvider({
          accountSid: ACCOUNT_SID,
          authToken: AUTH_TOKEN,
          from: FROM,
          messagingServiceSid: MESSAGING_SERVICE_SID,
        }),
      /exactly one/,
    );
    assert.throws(
      () => new TwilioSmsProvider({ accountSid: 'AC123', authToken: AUTH_TOKEN, from: FROM }),
      /accountSid/,
    );
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('30'), 30_000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', new Date('Wed, 21 Oct 2015 07:28:00 GMT')), 10_000);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
  });
});

describe('Twilio has no idempotency key: a send again after a lost answer looks for the first message', () => {
  /** The message was written a minute ago; an earlier attempt of it may have been accepted. */
  const again = (extra: Partial<SmsMessage> = {}): SmsMessage => ({
    ...message(),
    earlierAttemptSince: new Date(Date.now() - 60_000),
    ...extra,
  });

  it('a message Twilio accepted whose answer was lost is answered by its sid, not texted again', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = 'drop';
    await assert.rejects(
      twilio.send(message()),
      (e: unknown) => e instanceof SmsRetryableError && e.reason === 'network',
    );
    assert.equal(fake.messages.length, 1, 'Twilio accepted it');
    fake.override = null;

    const result = await twilio.send(again());
    assert.equal(result.providerMessageId, fake.messages[0]?.sid);
    assert.equal(result.status, 'queued');
    assert.equal(fake.messages.length, 1, 'the customer gets the message once');
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['POST', 'GET'],
    );
    assert.deepEqual({ ...fake.requests[1]?.form }, { To: TO, PageSize: '50' });
  });

  it('the same link in a body Twilio spelled otherwise is the same message', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = 'drop';
    await assert.rejects(twilio.send(message()), SmsRetryableError);
    fake.override = null;
    const first = fake.messages[0]!;
    first.resource.body = BODY.replace('€', 'EUR ');
    const result = await twilio.send(again());
    assert.equal(result.providerMessageId, first.sid);
    assert.equal(fake.messages.length, 1);
  });

  it('nothing accepted before: the look-up finds nothing and the message is sent', async (t) => {
    const { fake, twilio } = await setup(t);
    // another message to the same number, and the same body to another number: neither is this one
    await twilio.send({ ...message(), body: 'Another message' });
    await twilio.send(message('+33698765432'));
    const result = await twilio.send(again());
    assert.equal(fake.messages.length, 3);
    assert.equal(result.providerMessageId, fake.messages[2]?.sid);
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['POST', 'POST', 'GET', 'POST'],
    );
  });

  it('an earlier message created before this one was written is not it', async (t) => {
    const { fake, twilio } = await setup(t);
    await twilio.send(message());
    const result = await twilio.send(again({ earlierAttemptSince: new Date(Date.now() + 3_600_000) }));
    assert.equal(fake.messages.length, 2);
    assert.equal(result.providerMessageId, fake.messages[1]?.sid);
  });

  it('an earlier message the carrier failed to deliver is sent again: the customer never got it', async (t) => {
    const { fake, twilio } = await setup(t);
    fake.override = 'drop';
    await assert.rejects(twilio.send(message()), SmsRetryableError);
    fake.override = null;
    fake.messages[0]!.resource.status = 'undelivered';
    fake.messages[0]!.resource.error_code = 30003;
    const result = await twilio.send(again());
    assert.equal(fake.messages.length, 2);
    assert.equal(result.providerMessageId, fake.messages[1]?.sid);
  });

  const twilioError = (status: number, code: number) => ({
    status,
    body: { code, message: 'error', more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  });

  for (const [what, override, reason] of [
    ['a 5xx', twilioError(503, 20500), 'server_error'],
    ['a 429', { ...twilioError(429, 20429), headers: { 'retry-after': '1' } }, 'rate_limited'],
    ['a dropped connection', 'drop', 'network'],
    ['an unreadable 200', { status: 200, rawBody: '<html>maintenance</html>' }, 'invalid_response'],
    ['a 200 without a list', { status: 200, rawBody: '{"page":0}' }, 'invalid_response'],
  ] as const) {
    it(`a look-up answered by ${what} is retried, nothing posted, the attempt not counted`, async (t) => {
      const { fake, twilio } = await setup(t);
      fake.override = override;
      const error = await twilio.send(again()).catch((e: unknown) => e);
      assert.ok(error instanceof SmsRetryableError, String(error));
      assert.equal(error.reason, reason);
      assert.equal(error.notSent, true, 'failed before the send: the customer was not texted');
      assert.deepEqual(
        fake.requests.map((r) => r.method),
        ['GET'],
      );
      assert.equal(fake.messages.length, 0);
    });
  }

  it('a look-up with no answer in time is a timeout, nothing posted, not counted', async (t) => {
    const { fake, twilio } = await setup(t, { timeoutMs: 500 });
    fake.override = 'hang';
    const error = await twilio.send(again()).catch((e: unknown) => e);
    assert.ok(error instanceof SmsRetryableError, String(error));
    assert.equal(error.reason, 'timeout');
    assert.equal(error.notSent, true);
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['GET'],
    );
  });

  it('a timeout of the send itself (after the look-up) counts', async (t) => {
    const { fake, twilio } = await setup(t, { timeoutMs: 500 });
    fake.override = 'hang';
    const error = await twilio.send(message()).catch((e: unknown) => e);
    assert.ok(error instanceof SmsRetryableError, String(error));
    assert.equal(error.reason, 'timeout');
    assert.equal(error.notSent, false, 'Twilio may have the message');
  });

  it('a look-up Twilio refuses with another 4xx sends anyway (a duplicate beats a lost link)', async (t) => {
    // the refusal is the look-up's only: the POST that follows reaches the fake
    const refuseLookUp: typeof fetch = async (url, init) =>
      (init?.method ?? 'GET') === 'GET'
        ? new Response(JSON.stringify(twilioError(400, 20001).body), {
            status: 400,
            headers: { 'content-type': 'application/json' },
          })
        : fetch(url, init);
    const { fake, twilio } = await setup(t, { fetch: refuseLookUp });
    const result = await twilio.send(again());
    assert.equal(fake.messages.length, 1, 'the message posted');
    assert.equal(result.providerMessageId, fake.messages[0]?.sid);
  });

  it('the match does not depend on the order Twilio lists messages in, and skips a sid recorded elsewhere', async (t) => {
    for (const oldestFirst of [false, true]) {
      const { fake, twilio } = await setup(t);
      fake.listOldestFirst = oldestFirst;
      fake.override = 'drop';
      await assert.rejects(twilio.send(message()), SmsRetryableError);
      await assert.rejects(twilio.send(message()), SmsRetryableError);
      fake.override = null;
      assert.equal(fake.messages.length, 2);
      const [first, second] = fake.messages;
      second!.resource.date_created = new Date(Date.now() + 1_000).toUTCString().replace(/GMT$/, '+0000');
      assert.equal((await twilio.send(again())).providerMessageId, first!.sid, 'the earliest created');
      const taken = new Set([first!.sid]);
      const other = await twilio.send(again({ isRecordedElsewhere: async (sid) => taken.has(sid) }));
      assert.equal(other.providerMessageId, second!.sid, 'not a sid another message recorded');
      taken.add(second!.sid);
      const fresh = await twilio.send(again({ isRecordedElsewhere: async (sid) => taken.has(sid) }));
      assert.equal(fake.messages.length, 3, 'every match is another message: sent');
      assert.equal(fresh.providerMessageId, fake.messages[2]?.sid);
    }
  });

  it('a look-up refused for the credentials is unauthorized, and nothing is sent', async (t) => {
    const { fake, twilio } = await setup(t, { authToken: 'wrong-token' });
    await assert.rejects(
      twilio.send(again()),
      (e: unknown) => e instanceof SmsRejectedError && e.reason === 'unauthorized',
    );
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['GET'],
    );
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe("twilioFailureClass: the 300xx codes of Twilio's OpenAPI document (reference/twilio), and those it does not define", () => {
  // the document lists two carrier codes, in its examples: 30004 "Message blocked", 30007 "Carrier violation"
  it('30004 (message blocked: by the recipient or their carrier) is the recipient refusing', () => {
    assert.equal(twilioFailureClass(30004), 'recipient_refused');
  });
  it("30007 (carrier violation: filtered as spam or for its content) is the platform's, lasting", () => {
    assert.equal(twilioFailureClass(30007), 'platform');
  });
  // not defined by the reference: left to the default (the platform's, lasting; the operator resends)
  for (const code of [30018, 30023, 30027])
    it(`${code}, not in the reference, is left to the default: the platform's`, () => {
      assert.equal(twilioFailureClass(code), 'platform');
    });
});
