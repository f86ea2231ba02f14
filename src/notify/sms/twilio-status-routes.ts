import formbody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import type { TwilioConfig } from '../../platform/config.ts';
import type { Db } from '../../platform/db.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import { DomainError } from '../../platform/errors.ts';
import { smsDeliveriesTotal } from '../../platform/metrics.ts';
import { isSmsDeliveryStatus, recordSmsDelivery, type OnUndelivered } from './delivery.ts';
import { isTwilioSignature } from './twilio-signature.ts';
import { claimOfProviderMessage, messageRequeuedAtSend } from './sms-repo.ts';
import { twilioFailureClass } from './twilio.ts';

/**
 * Twilio's status callback (docs/sms.md, "Delivery receipts"): `POST /providers/twilio/sms-status`,
 * form-encoded as Twilio sends it (`MessageSid`, `MessageStatus`, `ErrorCode`, `AccountSid`, …),
 * signed with `X-Twilio-Signature` over the URL the platform gave Twilio (`statusCallbackUrl`).
 * Anything not signed with the account's auth token, or of another account, is a 403 and changes
 * nothing; a status the platform does not track (an inbound `received`) is acknowledged and ignored,
 * a receipt for a message not known yet is kept a day (`recordSmsDelivery`'s `early`). 204 otherwise:
 * Twilio only needs a 2xx.
 */
export function twilioStatusRoutes(deps: {
  db: Db;
  /** A message re-queued for a passing platform failure (30001) gets its send job, due at the hold's end. */
  jobs: JobQueue;
  twilio: TwilioConfig & { statusCallbackUrl: string };
  onUndelivered?: OnUndelivered;
  /** The application's clock: when a receipt was learnt (the `claim.customer_unreachable` event's time). */
  now: () => Date;
}): FastifyPluginAsync {
  return async (app) => {
    await app.register(formbody, { bodyLimit: 16_384 });
    app.post('/providers/twilio/sms-status', { schema: { hide: true } }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, string | string[]>;
      const pairs: [string, string][] = Object.entries(body).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, String(v)]),
      );
      const signature = request.headers['x-twilio-signature'];
      if (
        !isTwilioSignature(
          deps.twilio.authToken,
          deps.twilio.statusCallbackUrl,
          pairs,
          typeof signature === 'string' ? signature : undefined,
        ) ||
        body.AccountSid !== deps.twilio.accountSid
      )
        throw new DomainError('forbidden', "The request does not carry Twilio's signature for this account.");
      const sid = one(body.MessageSid) ?? one(body.SmsSid);
      const status = one(body.MessageStatus) ?? one(body.SmsStatus);
      if (!sid || !status || !isSmsDeliveryStatus(status)) return reply.code(204).send();
      const code = Number(one(body.ErrorCode));
      const errorCode = one(body.ErrorCode) && Number.isInteger(code) && code >= 0 ? code : null;
      const undelivered = status === 'undelivered' || status === 'failed';
      const failure = undelivered ? twilioFailureClass(errorCode) : undefined;
      const platformFailure =
        failure === 'platform' ? 'lasting' : failure === 'platform_temporary' ? 'temporary' : undefined;
      // the claim, for the operator (never the phone nor the name): read first, a resend forgets the sid
      const claim = platformFailure ? await claimOfProviderMessage(deps.db, 'twilio', sid) : undefined;
      const outcome = await recordSmsDelivery(
        { db: deps.db, jobs: deps.jobs, onUndelivered: deps.onUndelivered },
        'twilio',
        { messageSid: sid, status, errorCode, platformFailure },
        deps.now(),
      );
      smsDeliveriesTotal.inc({ status, outcome });
      // the receipt of a message Twilio created failed at send (30001), which the send already queued
      // again for that failure and forgot the sid of: kept early (forgotten in a day), not a second alarm
      const requeuedAtSend =
        platformFailure === 'temporary' && outcome === 'early'
          ? await messageRequeuedAtSend(deps.db, 'twilio', sid, new Date(deps.now().getTime() - 86_400_000))
          : undefined;
      if (requeuedAtSend)
        request.log.info(
          { messageSid: sid, status, errorCode, outcome, ...requeuedAtSend },
          'sms delivery receipt of a send already queued again for that failure (answered at send)',
        );
      else if (platformFailure && (outcome === 'recorded' || outcome === 'early')) {
        // not the customer's phone: the platform's sender, account, content or throughput (every customer
        // alike); the claim named for the operator's resend
        request.log.error(
          { messageSid: sid, status, errorCode, outcome, platformFailure, ...claim },
          platformFailure === 'temporary'
            ? 'sms undelivered for a passing reason of the platform (Twilio queue overflow): sent again at the end of its back-off while sends are left, the partner is not told'
            : 'sms undelivered for a reason of the platform (Twilio account, sender or content): the partner is not told',
        );
      } else request.log.info({ messageSid: sid, status, errorCode, outcome }, 'sms delivery receipt');
      return reply.code(204).send();
    });
  };
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
