import crypto from 'node:crypto';
import type { TestContext } from 'node:test';
import Fastify from 'fastify';
import { describeErrors, twilioValidators } from './twilio-spec.ts';

/**
 * A local stand-in for api.twilio.com's Messages API, on 127.0.0.1 and a free port. It checks what
 * the adapter sends (path, basic auth, content type, the form against Twilio's request schema) and
 * answers like Twilio: 201 with a message resource, or an exception body. Every body it sends is
 * validated against Twilio's schemas; `problems` collects anything that did not validate, on either
 * side, and every test asserts it stays empty.
 *
 * Twilio's documented test numbers drive the errors: +15005550001 (21211, invalid number) and
 * +15005550009 (21614, not a mobile). `override` forces the next answers (500, 429, hang, or `drop`:
 * the message is created, then the connection closed without an answer — Twilio accepted it, the
 * adapter never learns its sid; or `trickle`: a create answered 201 at once, then a body that comes a
 * byte at a time and never ends — a slow proxy, not Twilio's answer, so not validated). `GET …/Messages.json` lists the messages created, newest first
 * (the document gives no order: the adapter must not rely on it; `listOldestFirst` reverses it),
 * filtered by `To`, its query checked against the parameters the document declares and its answer
 * against `ListMessageResponse`. The override applies to the look-up too (`drop` there: the
 * connection closed without an answer). `queueOverflow` answers the next creates with Twilio's 30001
 * (queue overflow: the sender's throughput exceeded): a message created already `failed` (or
 * `undelivered`) with `error_code` 30001 — the shape Twilio's document gives a create's 201, listed by
 * the look-up like any message — or, `as: 'error'`, an error answer 400 with code 30001 (the document
 * describes no error answer: Twilio's exception shape, nothing created).
 */

export const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const AUTH_TOKEN = 'fake-auth-token-0123456789';
export const MESSAGING_SERVICE_SID = `MG${'fedcba9876543210'.repeat(2)}`;
export const INVALID_NUMBER = '+15005550001';
export const NOT_MOBILE_NUMBER = '+15005550009';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** A forced answer: a Twilio-shaped body (validated), a raw text body (a proxy's page, not validated), or none at all. */
export type Override =
  { status: number; body?: unknown; rawBody?: string; headers?: Record<string, string> } | 'hang' | 'drop' | 'trickle';

export interface FakeTwilio {
  baseUrl: string;
  requests: SeenRequest[];
  /** Bodies answered, in order. */
  answers: { status: number; body: unknown }[];
  /** Schema violations by the adapter (requests) or by the fake (answers). */
  problems: string[];
  /** Applied to every following request until reset to null. */
  override: Override | null;
  /** The look-up lists oldest first (Twilio's document does not say which order). */
  listOldestFirst: boolean;
  /** The messages created (what the customers' phones get, unless failed), oldest first. */
  messages: { sid: string; to: string; body: string; resource: Record<string, unknown> }[];
  /** The next `times` creates answered with Twilio's 30001 (queue overflow), `as` a failed message or an error answer. */
  queueOverflow: { as: 'failed' | 'undelivered' | 'error'; times: number } | null;
}

function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** "Thu, 24 Aug 2023 05:01:45 +0000", as Twilio writes dates. */
function rfc2822(date: Date): string {
  return date.toUTCString().replace(/GMT$/, '+0000');
}

export async function startFakeTwilio(t: Pick<TestContext, 'after'>): Promise<FakeTwilio> {
  const validators = twilioValidators();
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let release: () => void = () => {};
  const closed = new Promise<void>((resolve) => (release = resolve));
  app.addHook('onClose', async () => release());
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const fake: FakeTwilio = {
    baseUrl: '',
    requests: [],
    answers: [],
    problems: [],
    override: null,
    listOldestFirst: false,
    messages: [],
    queueOverflow: null,
  };
  const expected = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;

  app.get<{ Params: { accountSid: string }; Querystring: Record<string, string> }>(
    '/2010-04-01/Accounts/:accountSid/Messages.json',
    async (request, reply) => {
      const query = request.query;
      fake.requests.push({
        method: request.method,
        path: request.url,
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        form: query,
      });
      if (request.params.accountSid !== ACCOUNT_SID || request.headers.authorization !== expected) {
        const body = twilioError(401, 20003, 'Authenticate');
        fake.answers.push({ status: 401, body });
        return reply.code(401).type('application/json').send(JSON.stringify(body));
      }
      for (const name of Object.keys(query))
        if (!validators.listQuery.includes(name))
          fake.problems.push(`list query parameter ${name} not in the document`);
      if (fake.override === 'hang') {
        await closed;
        return reply;
      }
      if (fake.override === 'drop') {
        request.raw.socket.destroy();
        return reply;
      }
      // a trickle is a create's (the look-up answers as without it)
      const forced = fake.override === 'trickle' ? null : fake.override;
      if (forced?.rawBody !== undefined)
        return reply
          .code(forced.status)
          .headers(forced.headers ?? {})
          .type('text/html')
          .send(forced.rawBody);
      if (forced) {
        const body = forced.body ?? {};
        const validate = forced.status === 200 ? validators.list : validators.error;
        if (!validate(body))
          fake.problems.push(
            `fake answered ${forced.status} outside Twilio's schema: ${describeErrors(validate.errors)}`,
          );
        fake.answers.push({ status: forced.status, body });
        return reply
          .code(forced.status)
          .headers(forced.headers ?? {})
          .type('application/json')
          .send(JSON.stringify(body));
      }
      const pageSize = Number(query.PageSize ?? 50);
      const newestFirst = fake.messages.filter((m) => query.To === undefined || m.to === query.To).reverse();
      const page = newestFirst.slice(0, pageSize);
      const listed = (fake.listOldestFirst ? page.reverse() : page).map((m) => m.resource);
      // the document's schema says `format: uri` (its own example is a relative path): absolute here
      const uri = `https://api.twilio.com${request.url}`;
      const body = {
        end: Math.max(0, listed.length - 1),
        first_page_uri: uri,
        next_page_uri: null,
        page: 0,
        page_size: pageSize,
        previous_page_uri: null,
        start: 0,
        uri,
        messages: listed,
      };
      if (!validators.list(body))
        fake.problems.push(`fake listed outside Twilio's schema: ${describeErrors(validators.list.errors)}`);
      fake.answers.push({ status: 200, body });
      return reply.code(200).type('application/json').send(JSON.stringify(body));
    },
  );

  app.post<{ Params: { accountSid: string }; Body: Record<string, string> | undefined }>(
    '/2010-04-01/Accounts/:accountSid/Messages.json',
    async (request, reply) => {
      const form = request.body ?? {};
      fake.requests.push({
        method: request.method,
        path: request.url,
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        form,
      });
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const validate = status === 201 ? validators.message : validators.error;
        if (!validate(body))
          fake.problems.push(`fake answered ${status} outside Twilio's schema: ${describeErrors(validate.errors)}`);
        fake.answers.push({ status, body });
        return reply.code(status).headers(headers).type('application/json').send(JSON.stringify(body));
      };

      if (fake.override === 'hang') {
        await closed;
        return reply;
      }
      if (fake.override === 'trickle') {
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
        raw.write('{"sid":"SM');
        const timer = setInterval(() => raw.write('0'), 20);
        raw.on('close', () => clearInterval(timer));
        return reply;
      }
      const forced = fake.override === 'drop' ? null : fake.override;
      if (forced?.rawBody !== undefined) {
        return reply
          .code(forced.status)
          .headers(forced.headers ?? {})
          .type('text/html')
          .send(forced.rawBody);
      }
      if (forced) return answer(forced.status, forced.body ?? {}, forced.headers);

      // Authentication first, as Twilio does: basic auth AccountSid:AuthToken matching the path.
      if (request.params.accountSid !== ACCOUNT_SID || request.headers.authorization !== expected) {
        return answer(401, twilioError(401, 20003, 'Authenticate'));
      }
      if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        fake.problems.push(`request content type ${request.headers['content-type']}`);
      }
      if (!validators.request(form))
        fake.problems.push(`request form outside Twilio's schema: ${describeErrors(validators.request.errors)}`);

      if (!form.From && !form.MessagingServiceSid)
        return answer(
          400,
          twilioError(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message"),
        );
      if (!form.Body) return answer(400, twilioError(400, 21602, 'Message body is required.'));
      if (form.To === INVALID_NUMBER)
        return answer(400, twilioError(400, 21211, `The 'To' number ${form.To} is not a valid phone number.`));
      if (form.To === NOT_MOBILE_NUMBER)
        return answer(400, twilioError(400, 21614, `'To' number ${form.To} is not a valid mobile number`));

      const overflow = fake.queueOverflow && fake.queueOverflow.times > 0 ? fake.queueOverflow.as : null;
      if (fake.queueOverflow && overflow) fake.queueOverflow.times -= 1;
      if (overflow === 'error') return answer(400, twilioError(400, 30001, 'Queue overflow'));

      const sid = `SM${crypto.randomBytes(16).toString('hex')}`;
      const now = rfc2822(new Date());
      const resource = {
        account_sid: ACCOUNT_SID,
        api_version: '2010-04-01',
        body: form.Body,
        date_created: now,
        date_sent: null,
        date_updated: now,
        direction: 'outbound-api',
        error_code: overflow ? 30001 : null,
        error_message: overflow ? 'Queue overflow' : null,
        from: form.From ?? null,
        messaging_service_sid: form.MessagingServiceSid ?? null,
        num_media: '0',
        num_segments: form.MessagingServiceSid ? '0' : '1',
        price: null,
        price_unit: 'USD',
        sid,
        status: overflow ?? (form.MessagingServiceSid ? 'accepted' : 'queued'),
        subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}/Media.json` },
        to: form.To ?? null,
        uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`,
      };
      fake.messages.push({ sid, to: form.To ?? '', body: form.Body, resource });
      if (fake.override === 'drop') {
        // accepted, and the answer lost on the way back
        request.raw.socket.destroy();
        return reply;
      }
      return answer(201, resource);
    },
  );

  t.after(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  fake.baseUrl = `http://127.0.0.1:${address.port}`;
  return fake;
}
