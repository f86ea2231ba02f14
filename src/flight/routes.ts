import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PartnerDirectory } from '../partners/index.ts';
import type { FailedAuthLimiter } from '../platform/rate-limit.ts';
import type { KeyRateLimiter } from '../platform/shared-rate-limit.ts';
import { cancellationsTotal, subscriptionsTotal } from '../platform/metrics.ts';
import { named, problemResponses } from '../platform/openapi.ts';
import {
  callerOf,
  IdempotencyHeader,
  replyIdempotent,
  securePartnerApi,
  type OperatorAuthenticator,
} from '../platform/partner-api.ts';
import { cancelContract } from './cancel-contract.ts';
import { cancelPart, previewPartialCancellation } from './cancel-part.ts';
import { changeContact } from './change-contact.ts';
import type { FlightDeps } from './deps.ts';
import { listPartnerClaims, readPartnerClaim } from './list-claims.ts';
import { readContract, searchContracts } from './read-contracts.ts';
import { reportFlightEvent, reportFlightEventAsOperator } from './report-flight-event.ts';
import { listSandboxMessages } from './sandbox-messages.ts';
import { issueQuote, simulatePrice } from './price-quote.ts';
import * as S from './schemas.ts';
import { subscribe } from './subscribe.ts';

export const FLIGHT_PREFIX = '/flight-delay/v1';

const PARTIAL_CANCELLATION =
  "Some passengers (`passengers`: how many) or one leg (`leg`: 0 outbound, 1 return) leave the contract; the rest stays covered and the contract keeps its number, at its next version. The refund is the premium share of what leaves: each leg's share per passenger is fixed at the sale, in proportion to its own price. Passengers: before the first insured departure and while no claim exists, fewer than the contract insures. A leg: before its departure, while it has no claim, and while another leg stays (e.g. the return of a trip whose outbound has flown). To cancel everything, POST /cancel. 409 `contract_not_cancellable` (cancelled or completed contract, departed flight, claim), 422 `validation_failed` (neither or both of passengers and leg, too many passengers, unknown or only leg).";

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
        description:
          "Prices the trip with your current formula, compensation amounts and commission, and the tax of your agreement. Returns a quote reference, its terms signed, valid until expiresAt (24 h from the minute it was issued unless the platform is configured otherwise, never later than 2 h before departure). Departures less than 3 h away or more than 365 days ahead cannot be insured. The answer names the risk model version it was priced with and breaks each leg down: each payout event's probability with the model's explanation (base rate × factors), the expected loss and the leg's premium share. Name the flights (flightNumber, returnFlightNumber) when known: the model may price them more sharply, and /subscribe must then name them. Every quote carries `documents` (the insurance product information document and the terms, each by URL, version and SHA-256, under one documents `version` signed in the quote) and the `insurer` (legal identity, complaints contact): show them to the customer before the purchase. `partner_not_configured` (409) also when your agreement has no documents yet. A quote that could not be subscribed answers 409: `capacity_exceeded` when a flight of the trip has no room left for this policy (each flight carries a cap on what its contracts can pay out: the most the coverage pays per passenger × passengers, per leg; the detail names the flight), `sales_suspended` when the insurer has suspended sales for the flight, its airline or an airport (a strike, a visible disruption).",
        body: S.QuoteRequest,
        response: {
          200: named(S.QuoteResponse, 'Quote', 'The quote, priced and signed'),
          ...problemResponses(409, 422),
        },
      },
      handler: (request) => issueQuote(deps, callerOf(request), request.body),
    });

    app.post('/getPrice/simulate', {
      config: { rateClass: 'quote' },
      schema: {
        tags,
        operationId: 'simulatePrice',
        summary: 'Simulate a premium with terms of your choice',
        description:
          'Prices the trip with the formula, compensation amounts and commission rate you send (within your agreement), by the same code as /getPrice. A simulation has no quote reference and cannot be subscribed.',
        body: S.SimulationRequest,
        response: { 200: S.SimulationResponse, ...problemResponses(409, 422) },
      },
      handler: async (request) => simulatePrice(deps, callerOf(request), request.body),
    });

    app.post('/subscribe', {
      schema: {
        tags,
        operationId: 'subscribe',
        summary: 'Create a contract from a quote',
        description:
          "Binds exactly the quoted premium, coverage and configuration version. The flights must be the quoted ones (outbound, then return), each flight number starting with the quoted airline (the quoted flight when the quote named one). The contract records the quote's risk model version; a later change of the active model changes nothing to a live quote. A quote subscribes once. `consent` is required: when the customer accepted the quote's documents, their `documentsVersion` and the channel; a version other than the quote's answers 422 `documents_version_mismatch` (a newer version of the documents applies to new quotes only), and the contract records the consent. Honours Idempotency-Key. 409 `capacity_exceeded` (with the flight at `/flights/<i>`) when a flight has no room left for this contract any more, 409 `sales_suspended` when sales were suspended since the quote: the subscription is what decides, a quote does not reserve capacity.",
        headers: IdempotencyHeader,
        body: S.SubscribeRequest,
        response: {
          201: named(S.ContractResponse, 'Contract', 'The contract, subscribed'),
          ...problemResponses(409, 422),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.subscribe',
          status: 201,
          run: (trx, caller) => subscribe(deps, trx, caller, request.body),
          after: async (outcome, caller) => {
            if (!outcome.replayed) subscriptionsTotal.inc({ environment: caller.environment });
            await deps.limits?.refresh(); // this process's quotes see the new exposure at once
          },
        }),
    });

    app.post('/cancel', {
      schema: {
        tags,
        operationId: 'cancel',
        summary: 'Cancel a contract and refund the premium',
        description:
          'Before the first insured departure (and while no claim is open) the contract is cancelled and the full premium refunded. Cancelling a cancelled contract returns the same result. After departure: 409 contract_not_cancellable. Honours Idempotency-Key.',
        headers: IdempotencyHeader,
        body: S.CancelRequest,
        response: {
          200: named(S.CancelResponse, 'Cancellation', 'The contract cancelled, with its refund'),
          ...problemResponses(404, 409, 422),
        },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.cancel',
          status: 200,
          run: (trx, caller) => cancelContract(deps, trx, caller, request.body),
          after: async (outcome, caller) => {
            if (!outcome.replayed) cancellationsTotal.inc({ environment: caller.environment });
            await deps.limits?.refresh();
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
          200: named(
            S.PartialCancellationResponse,
            'PartialCancellation',
            'What the cancellation would leave and refund',
          ),
          ...problemResponses(404, 409, 422),
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
          200: named(S.PartialCancellationResponse, 'PartialCancellation', 'What stays covered, and the refund'),
          ...problemResponses(404, 409, 422),
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
        description:
          "The platform opens claims by itself from flight data. To rehearse the claim flow, a sandbox or preproduction key reports what happened to a flight (delayed with its arrival delay at the gate, cancelled, or diverted); the claims of your active contracts on that flight open by the same rules: the highest delay tier reached, the cancellation amount, a diversion as a cancellation when covered. One claim per insured flight, ever: reporting again opens nothing more. Production partner keys: 403. The insurer's operator tokens (`pso_…`) report events in any environment (`environment`, default production), for every partner's contracts.",
        body: S.FlightEventRequest,
        response: { 200: S.FlightEventResponse, ...problemResponses(422) },
      },
      config: { operatorAccess: true },
      handler: async (request) =>
        request.operator
          ? reportFlightEventAsOperator(deps, request.operator, request.body)
          : reportFlightEvent(deps, callerOf(request), request.body),
    });

    app.get('/contracts/:contractNumber', {
      schema: {
        tags,
        operationId: 'getContract',
        summary: 'Read a contract',
        description:
          "One of your contracts: status, customer, flights with what the platform knows of each (flightStatus), premium, coverage, cancellation, claims, the configuration and risk model versions. Another partner's contract, or one of another environment: 404 contract_not_found.",
        params: S.ContractNumberParams,
        response: { 200: S.ContractDetailResponse, ...problemResponses(404, 422) },
      },
      handler: async (request) => readContract(deps, callerOf(request), request.params.contractNumber),
    });

    app.patch('/contracts/:contractNumber/customer', {
      schema: {
        tags,
        operationId: 'changeContact',
        summary: "Change the customer's phone, email or language",
        description:
          'The messages sent from now on (claim SMS, reminders) use the new contact. Give one or more of phone, email, language. Audited (the fields changed, not their values). A cancelled contract: 409 contract_cancelled. Honours Idempotency-Key.',
        headers: IdempotencyHeader,
        params: S.ContractNumberParams,
        body: S.ContactChangeRequest,
        response: { 200: S.ContactChangeResponse, ...problemResponses(404, 409, 422) },
      },
      handler: async (request, reply) =>
        replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'flight.contact',
          status: 200,
          key: { ...request.body, contractNumber: request.params.contractNumber },
          run: (trx, caller) => changeContact(deps, trx, caller, request.params.contractNumber, request.body),
        }),
    });

    app.get('/contracts', {
      schema: {
        tags,
        operationId: 'searchContracts',
        summary: 'Search your contracts',
        description:
          "Your contracts of the key's environment, newest first, by booking reference, status (repeat status= for several) and the days they were subscribed on (createdFrom, createdTo: inclusive, UTC), paginated with cursor/limit.",
        querystring: S.ContractSearchQuery,
        response: { 200: S.ContractSearchResponse, ...problemResponses(422) },
      },
      handler: async (request) => searchContracts(deps, callerOf(request), request.query),
    });

    app.get('/sandbox/messages', {
      schema: {
        tags,
        operationId: 'listSandboxMessages',
        summary: 'Read the SMS your customers would have received (sandbox and preproduction)',
        description:
          'In sandbox and preproduction no SMS leaves the platform: each message is kept in an outbox, here for one of your contracts, oldest first — with the bank-details link, so you can follow the claim flow as a customer would. Production: 404.',
        querystring: S.SandboxMessagesQuery,
        response: { 200: S.SandboxMessagesResponse, ...problemResponses(404, 422) },
      },
      handler: async (request) => listSandboxMessages(deps, callerOf(request), request.query.contractNumber),
    });

    app.get('/claims/:claimNumber', {
      schema: {
        tags,
        operationId: 'getClaim',
        summary: 'Read one of your claims with its evidence',
        description:
          'The claim, its status and its evidence: where the flight facts came from, the scheduled and actual gate times, the delay computed, the rule of the contract that pays and its version, and when the claim was decided. Only your own claims, in the environment of your key: 404 `claim_not_found` otherwise.',
        params: S.ClaimNumberParams,
        response: { 200: S.ClaimResponse, ...problemResponses(404, 422) },
      },
      handler: async (request) => readPartnerClaim(deps, callerOf(request), request.params.claimNumber),
    });
    // Documented alias: /getclaims and /getClaims answer alike.
    for (const [path, operationId] of [
      ['/getclaims', 'getClaims'],
      ['/getClaims', 'getClaimsAlias'],
    ] as const) {
      app.post(path, {
        schema: {
          tags,
          operationId,
          summary: path === '/getclaims' ? 'List your claims' : 'List your claims (alias of /getclaims)',
          description:
            'Claims opened on the days from fromDate to toDate (inclusive, UTC), or all the claims of one contract (contractNumber alone), optionally only those in some statuses (status), oldest first, paginated with cursor/limit. Only your own claims. Each claim carries its evidence (flight facts, delay computed, the rule that pays and its version, decided at).',
          body: S.ClaimsRequest,
          response: { 200: S.ClaimsResponse, ...problemResponses(404, 422) },
        },
        handler: async (request) => listPartnerClaims(deps, callerOf(request), request.body),
      });
    }
  };
}
