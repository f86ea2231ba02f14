import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PartnerDirectory } from '../partners/index.ts';
import type { FailedAuthLimiter } from '../platform/rate-limit.ts';
import type { KeyRateLimiter } from '../platform/shared-rate-limit.ts';
import { cancellationsTotal, subscriptionsTotal } from '../platform/metrics.ts';
import { DomainError } from '../platform/errors.ts';
import { named, problemResponses, withExample } from '../platform/openapi.ts';
import {
  callerOf,
  IdempotencyHeader,
  idempotencyKeyOf,
  replyIdempotent,
  securePartnerApi,
  type OperatorAuthenticator,
} from '../platform/partner-api.ts';
import { cancelContract } from './cancel-contract.ts';
import { cancelPart, previewPartialCancellation } from './cancel-part.ts';
import { changeContact } from './change-contact.ts';
import { confirmFlightChange, previewFlightChange } from './change-flight.ts';
import type { FlightDeps } from './deps.ts';
import { listPartnerClaims, readPartnerClaim } from './list-claims.ts';
import { readContract, searchContracts } from './read-contracts.ts';
import { reportFlightEvent, reportFlightEventAsOperator } from './report-flight-event.ts';
import { listSandboxMessages } from './sandbox-messages.ts';
import { issueQuote, simulatePrice, type Quote } from './price-quote.ts';
import { quoteBody } from './quote-body.ts';
import {
  CANCEL_DESCRIPTION,
  CHANGE_CONTACT_DESCRIPTION,
  CHANGE_FLIGHTS_DESCRIPTION,
  GET_CLAIMS_DESCRIPTION,
  GET_CLAIM_DESCRIPTION,
  GET_CONTRACT_DESCRIPTION,
  GET_PRICE_DESCRIPTION,
  LIST_SANDBOX_MESSAGES_DESCRIPTION,
  PARTIAL_CANCELLATION,
  PREVIEW_FLIGHT_CHANGE_DESCRIPTION,
  REPORT_FLIGHT_EVENT_DESCRIPTION,
  SEARCH_CONTRACTS_DESCRIPTION,
  SIMULATE_PRICE_DESCRIPTION,
  SUBSCRIBE_DESCRIPTION,
} from './route-descriptions.ts';
import { RESPONSE_EXAMPLES as EX } from './response-examples.ts';
import * as S from './schemas.ts';
import { subscribe } from './subscribe.ts';

export const FLIGHT_PREFIX = '/flight-delay/v1';

/** The Flight Delay and Cancellation API. Handlers only translate HTTP to use cases and back. */
export function flightDelayRoutes(
  deps: FlightDeps,
  options: {
    directory: PartnerDirectory;
    limiter: KeyRateLimiter;
    failures?: FailedAuthLimiter;
    operators?: OperatorAuthenticator;
  },
): FastifyPluginAsync {
  const idempotencyDeps = { db: deps.db, encryptionKey: deps.keys.encryption };
  return async (plugin) => {
    securePartnerApi(plugin, { api: 'flight-delay', ...options });
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['Flight Delay and Cancellation'];

    app.post('/getPrice', {
      config: { rateClass: 'quote' },
      schema: {
        tags,
        operationId: 'getPrice',
        summary: 'Quote a trip with your configuration',
        description: GET_PRICE_DESCRIPTION,
        body: S.QuoteRequest,
        response: {
          200: withExample(named(S.QuoteResponse, 'Quote', 'The quote, priced and signed'), EX.getPrice),
          ...problemResponses({
            409: ['partner_not_configured', 'capacity_exceeded', 'sales_suspended'],
            422: [
              'unknown_airport',
              'unknown_airline',
              'invalid_departure_time',
              'departure_too_soon',
              'departure_too_far',
            ],
          }),
        },
      },
      handler: (request, reply) => {
        // The body leaves serialised (quote-body.ts: the template's bytes cached, the same output); a
        // string with a JSON content type is sent as it is, not serialised again.
        // Fastify's typed reply sends only the unserialised answer, so the string goes through the
        // untyped reply; Quote is still checked against the schema's type, where it is serialised.
        const untyped: FastifyReply = reply;
        const send = (quote: Quote): void => {
          const body = quoteBody(quote, (q) => reply.serialize(q satisfies Static<typeof S.QuoteResponse>) as string);
          untyped.type('application/json; charset=utf-8').send(body);
        };
        const quote = issueQuote(deps, callerOf(request), request.body);
        if (!(quote instanceof Promise)) return send(quote);
        // sent from a promise: it settles once the answer is written (a reply is thenable), so that
        // Fastify, seeing it settle with nothing, does not send a second time
        return quote.then(async (q) => {
          send(q);
          await untyped;
        });
      },
    });

    app.post('/getPrice/simulate', {
      config: { rateClass: 'quote' },
      schema: {
        tags,
        operationId: 'simulatePrice',
        summary: 'Simulate a premium with terms of your choice',
        description: SIMULATE_PRICE_DESCRIPTION,
        body: S.SimulationRequest,
        response: {
          200: withExample(S.SimulationResponse, EX.simulatePrice),
          ...problemResponses({
            409: ['partner_not_configured'],
            422: [
              'unknown_airport',
              'unknown_airline',
              'invalid_departure_time',
              'departure_too_soon',
              'departure_too_far',
              'formula_not_allowed',
              'configuration_out_of_bounds',
            ],
          }),
        },
      },
      handler: async (request) => simulatePrice(deps, callerOf(request), request.body),
    });

    app.post('/subscribe', {
      schema: {
        tags,
        operationId: 'subscribe',
        summary: 'Create a contract from a quote',
        description: SUBSCRIBE_DESCRIPTION,
        headers: IdempotencyHeader,
        body: S.SubscribeRequest,
        response: {
          201: withExample(named(S.ContractResponse, 'Contract', 'The contract, subscribed'), EX.subscribe),
          ...problemResponses({
            409: ['quote_already_used', 'capacity_exceeded', 'sales_suspended'],
            422: [
              'quote_invalid',
              'quote_expired',
              'flights_mismatch',
              'documents_version_mismatch',
              'unknown_airline',
              'phone_not_mobile',
            ],
          }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.subscribe',
          status: 201,
          run: (trx, caller, storeResponse) => subscribe(deps, trx, caller, request.body, { storeResponse }),
          location: (created) => `${FLIGHT_PREFIX}/contracts/${String(created.contractNumber)}`,
          after: (outcome, caller) => {
            if (!outcome.replayed) subscriptionsTotal.inc({ environment: caller.environment });
          },
        }),
    });

    app.post('/cancel', {
      schema: {
        tags,
        operationId: 'cancel',
        summary: 'Cancel a contract and refund the premium',
        description: CANCEL_DESCRIPTION,
        headers: IdempotencyHeader,
        body: S.CancelRequest,
        response: {
          200: withExample(
            named(S.CancelResponse, 'Cancellation', 'The contract cancelled, with its refund'),
            EX.cancel,
          ),
          ...problemResponses({ 404: ['contract_not_found'], 409: ['contract_not_cancellable'] }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.cancel',
          status: 200,
          run: (trx, caller) => cancelContract(deps, trx, caller, request.body),
          after: (outcome, caller) => {
            if (!outcome.replayed) cancellationsTotal.inc({ environment: caller.environment });
          },
        }),
    });

    app.post('/contracts/:contractNumber/partial-cancellation/preview', {
      schema: {
        tags,
        operationId: 'previewPartialCancellation',
        summary: 'Preview cancelling passengers or one leg: the refund, before confirming',
        description:
          PARTIAL_CANCELLATION +
          ' The preview changes nothing: it answers what the same request to /partial-cancellation would do now.',
        params: S.ContractNumberParams,
        body: S.PartialCancellationRequest,
        response: {
          200: withExample(
            named(S.PartialCancellationResponse, 'PartialCancellation', 'What the cancellation would leave and refund'),
            EX.previewPartialCancellation,
          ),
          ...problemResponses({ 404: ['contract_not_found'], 409: ['contract_not_cancellable', 'contract_changed'] }),
        },
      },
      handler: async (request) =>
        previewPartialCancellation(deps, callerOf(request), request.params.contractNumber, request.body),
    });

    app.post('/contracts/:contractNumber/partial-cancellation', {
      schema: {
        tags,
        operationId: 'cancelPartially',
        summary: 'Cancel passengers or one leg of a contract, with the refund of their share',
        description: PARTIAL_CANCELLATION + ' Emits `contract.changed`. Honours Idempotency-Key.',
        headers: IdempotencyHeader,
        params: S.ContractNumberParams,
        body: S.PartialCancellationRequest,
        response: {
          200: withExample(
            named(S.PartialCancellationResponse, 'PartialCancellation', 'What stays covered, and the refund'),
            EX.cancelPartially,
          ),
          ...problemResponses({ 404: ['contract_not_found'], 409: ['contract_not_cancellable', 'contract_changed'] }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.partial_cancellation',
          status: 200,
          key: { ...request.body, contractNumber: request.params.contractNumber },
          run: (trx, caller) => cancelPart(deps, trx, caller, request.params.contractNumber, request.body),
          after: () => deps.limits?.refresh(),
        }),
    });

    app.post('/claims', {
      schema: {
        tags,
        operationId: 'reportFlightEvent',
        summary: 'Report a flight event: open the claims it causes (operators; partners in sandbox and preproduction)',
        description: REPORT_FLIGHT_EVENT_DESCRIPTION,
        headers: IdempotencyHeader,
        body: S.FlightEventRequest,
        response: {
          200: withExample(S.FlightEventResponse, EX.reportFlightEvent),
          ...problemResponses({ 403: ['forbidden'], 409: ['flight_not_departed'] }),
        },
      },
      config: { operatorAccess: true },
      handler: async (request, reply) => {
        if (request.operator) {
          refuseOperatorIdempotencyKey(request);
          return reportFlightEventAsOperator(deps, request.operator, request.body);
        }
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.report_event',
          status: 200,
          run: (trx, caller) => reportFlightEvent(deps, trx, caller, request.body),
        });
      },
    });

    app.get('/contracts/:contractNumber', {
      schema: {
        tags,
        operationId: 'getContract',
        summary: 'Read a contract',
        description: GET_CONTRACT_DESCRIPTION,
        params: S.ContractNumberParams,
        response: {
          200: withExample(S.ContractDetailResponse, EX.getContract),
          ...problemResponses({ 404: ['contract_not_found'] }),
        },
      },
      handler: async (request) => readContract(deps, callerOf(request), request.params.contractNumber),
    });

    app.patch('/contracts/:contractNumber/customer', {
      schema: {
        tags,
        operationId: 'changeContact',
        summary: "Change the customer's phone, email or language",
        description: CHANGE_CONTACT_DESCRIPTION,
        headers: IdempotencyHeader,
        params: S.ContractNumberParams,
        body: S.ContactChangeRequest,
        response: {
          200: withExample(S.ContactChangeResponse, EX.changeContact),
          ...problemResponses({
            404: ['contract_not_found'],
            409: ['contract_cancelled'],
            422: ['phone_not_mobile'],
          }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.contact',
          status: 200,
          key: { ...request.body, contractNumber: request.params.contractNumber },
          run: (trx, caller) => changeContact(deps, trx, caller, request.params.contractNumber, request.body),
        }),
    });

    app.post('/contracts/:contractNumber/flight-change/preview', {
      schema: {
        tags,
        operationId: 'previewFlightChange',
        summary: "Preview a change of the contract's flights",
        description: PREVIEW_FLIGHT_CHANGE_DESCRIPTION,
        params: S.ContractNumberParams,
        body: S.FlightChangeRequest,
        response: {
          200: withExample(
            named(S.FlightChangePreviewResponse, 'FlightChangePreview', 'The change, priced and signed'),
            EX.previewFlightChange,
          ),
          ...problemResponses({
            404: ['contract_not_found'],
            409: ['contract_not_changeable', 'partner_not_configured', 'leg_departed', 'leg_has_claim'],
            422: ['unknown_airline', 'departure_too_far'],
          }),
        },
      },
      handler: async (request) =>
        previewFlightChange(deps, callerOf(request), request.params.contractNumber, request.body),
    });

    app.post('/contracts/:contractNumber/flight-change', {
      schema: {
        tags,
        operationId: 'changeFlights',
        summary: "Confirm a change of the contract's flights",
        description: CHANGE_FLIGHTS_DESCRIPTION,
        headers: IdempotencyHeader,
        params: S.ContractNumberParams,
        body: S.FlightChangeConfirmRequest,
        response: {
          200: withExample(
            named(S.FlightChangeResponse, 'FlightChange', 'The contract after the change'),
            EX.changeFlights,
          ),
          ...problemResponses({
            404: ['contract_not_found'],
            409: [
              'contract_not_changeable',
              'contract_changed',
              'leg_departed',
              'leg_has_claim',
              'capacity_exceeded',
              'sales_suspended',
            ],
            422: ['change_reference_invalid', 'change_expired', 'departure_too_far'],
          }),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.change',
          status: 200,
          key: { ...request.body, contractNumber: request.params.contractNumber },
          run: (trx, caller) => confirmFlightChange(deps, trx, caller, request.params.contractNumber, request.body),
          after: async () => {
            await deps.limits?.refresh(); // this process's quotes see the moved exposure at once
          },
        }),
    });

    app.get('/contracts', {
      schema: {
        tags,
        operationId: 'searchContracts',
        summary: 'Search your contracts',
        description: SEARCH_CONTRACTS_DESCRIPTION,
        querystring: S.ContractSearchQuery,
        response: {
          200: withExample(S.ContractSearchResponse, EX.searchContracts),
          ...problemResponses({ 422: ['invalid_cursor'] }),
        },
      },
      handler: async (request) => searchContracts(deps, callerOf(request), request.query),
    });

    app.get('/sandbox/messages', {
      schema: {
        tags,
        operationId: 'listSandboxMessages',
        summary: 'Read the SMS your customers would have received (sandbox and preproduction)',
        description: LIST_SANDBOX_MESSAGES_DESCRIPTION,
        querystring: S.SandboxMessagesQuery,
        response: {
          200: withExample(S.SandboxMessagesResponse, EX.listSandboxMessages),
          ...problemResponses({ 404: ['not_found', 'contract_not_found'] }),
        },
      },
      handler: async (request) => listSandboxMessages(deps, callerOf(request), request.query.contractNumber),
    });

    app.get('/claims/:claimNumber', {
      schema: {
        tags,
        operationId: 'getClaim',
        summary: 'Read one of your claims with its evidence',
        description: GET_CLAIM_DESCRIPTION,
        params: S.ClaimNumberParams,
        response: { 200: withExample(S.ClaimResponse, EX.getClaim), ...problemResponses({ 404: ['claim_not_found'] }) },
      },
      handler: async (request) => readPartnerClaim(deps, callerOf(request), request.params.claimNumber),
    });
    // Documented alias: /getclaims and /getClaims answer alike.
    for (const [path, operationId] of [
      ['/getclaims', 'getClaims'],
      ['/getClaims', 'getClaimsAlias'],
    ] as const) {
      app.post(path, {
        // a POST only for its body: it reads, and spends the read budget
        config: { rateClass: 'read' },
        schema: {
          tags,
          operationId,
          summary: path === '/getclaims' ? 'List your claims' : 'List your claims (alias of /getclaims)',
          description: GET_CLAIMS_DESCRIPTION,
          body: S.ClaimsRequest,
          response: {
            200: withExample(S.ClaimsResponse, EX.getClaims),
            ...problemResponses({ 404: ['contract_not_found'], 422: ['invalid_cursor'] }),
          },
        },
        handler: async (request) => listPartnerClaims(deps, callerOf(request), request.body),
      });
    }
  };
}

/**
 * An operator's flight event has no partner to keep an Idempotency-Key under (keys are per partner
 * and environment): refused rather than ignored, so no operator believes a retry is replayed. A
 * repeated event opens nothing twice (one live claim per leg) and answers none opened.
 */
function refuseOperatorIdempotencyKey(request: FastifyRequest): void {
  if (idempotencyKeyOf(request) !== undefined)
    throw new DomainError('validation_failed', 'Idempotency-Key is for partner keys; an operator token sends none.', {
      errors: [
        {
          field: 'header:Idempotency-Key',
          code: 'not_allowed',
          message: 'not with an operator token: a repeated event opens nothing twice',
        },
      ],
    });
}
