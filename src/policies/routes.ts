import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { PartnerDirectory } from '../partners/index.ts';
import { named, problemResponses, withEtag } from '../platform/openapi.ts';
import { callerOf, IdempotencyHeader, replyIdempotent, securePartnerApi } from '../platform/partner-api.ts';
import { etagOf, ifMatchVersions, sendEtag } from '../platform/preconditions.ts';
import type { FailedAuthLimiter } from '../platform/rate-limit.ts';
import type { KeyRateLimiter } from '../platform/shared-rate-limit.ts';
import { activatePolicy } from './activate-policy.ts';
import { cancelPolicy } from './cancel-policy.ts';
import { changePolicyholder } from './change-policyholder.ts';
import { createPolicy } from './create-policy.ts';
import type { PolicyDeps } from './deps.ts';
import { getPolicy } from './get-policy.ts';
import { registerVehicle } from './register-vehicle.ts';
import { renewPolicy } from './renew-policy.ts';
import type { Product } from './policy.ts';
import { canonicalPolicyNumber } from './policy-number.ts';
import * as S from './schemas.ts';
import { searchPolicies } from './search-policies.ts';
import {
  ACTIVATE_POLICY_DESCRIPTION,
  CANCEL_POLICY_DESCRIPTION,
  CHANGE_POLICYHOLDER_DESCRIPTION,
  CREATE_POLICY_DESCRIPTION,
  REGISTER_VEHICLE_DESCRIPTION,
  RENEW_POLICY_DESCRIPTION,
} from './route-descriptions.ts';

export const POLICY_ADMIN_PREFIX = '/policy-admin/v1';

/** Where a policy just created (or renewed) is read: its 201's `Location`. */
const policyLocation = (created: Record<string, unknown>): string =>
  `${POLICY_ADMIN_PREFIX}/policies/${String(created.policyNumber)}`;

/**
 * The ETag of the policy answered (a renewal's 201: the renewal's): its version — none for an answer
 * stored before versions existed (a replay of it names no version, and no ETag is better than a false one).
 */
const policyEtag = (answer: Record<string, unknown>): string | undefined =>
  Number.isSafeInteger(answer.version) && (answer.version as number) >= 1
    ? etagOf(answer.version as number)
    : undefined;

/**
 * A change's headers: Idempotency-Key, and If-Match with the ETag of the policy as read. Each change
 * reads its If-Match in its `run`, which a replay never calls: a retry with the same key replays the
 * first answer whatever its If-Match, a malformed one too.
 */
const ChangeHeaders = {
  type: 'object',
  properties: {
    ...IdempotencyHeader.properties,
    'if-match': {
      type: 'string',
      maxLength: 1000,
      description:
        'The ETag of the policy as you read it (GET /policies/{policyNumber}, or the answer of your last change: its version in quotes, e.g. "3"). Optional: without it the change applies to the policy as it is. With it, a policy changed since (by another of your systems, or a change carried from another term) is a 412 policy_changed and nothing is changed: read it again, then decide. Several tags, or *, as RFC 9110; a weak tag (W/"3") never matches.',
    },
  },
} as const;

/**
 * The body schema accepts any object as `risk` (its documented anyOf has a free-form branch, for
 * product other); here the risk is checked against its product's schema with the app's own
 * validator, and its errors leave through the error handler like any body validation error — their
 * schema paths into the body's schema too (the product's branch of `risk`), so that a pattern error
 * says what the field expects (its description), as any body field's does.
 */
function assertRiskMatchesProduct(request: FastifyRequest, body: { product: Product; risk: unknown }): void {
  const schema = S.riskSchemas[body.product];
  const validate = request.compileValidationSchema(schema);
  if (validate(body.risk)) return;
  const branch = `#/properties/risk/anyOf/${(S.CreatePolicyRequest.properties.risk.anyOf as TSchema[]).indexOf(schema)}`;
  throw Object.assign(new Error(`risk is not a valid ${body.product} risk`), {
    statusCode: 400,
    validationContext: 'body',
    validation: (validate.errors ?? []).map((e) => ({
      ...e,
      instancePath: `/risk${e.instancePath}`,
      schemaPath: e.schemaPath.replace(/^#/, branch),
    })),
  });
}

/** The API to manage policies. Handlers only translate HTTP to use cases and back. */
export function policyAdminRoutes(
  deps: PolicyDeps,
  options: { directory: PartnerDirectory; limiter: KeyRateLimiter; failures?: FailedAuthLimiter },
): FastifyPluginAsync {
  const idempotencyDeps = { db: deps.db, encryptionKey: deps.keys.encryption };
  return async (plugin) => {
    securePartnerApi(plugin, { api: 'policy-admin', ...options });
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['Policies'];

    app.post('/policies', {
      schema: {
        tags,
        operationId: 'createPolicy',
        summary: 'Record a policy',
        description: CREATE_POLICY_DESCRIPTION,
        headers: IdempotencyHeader,
        body: S.CreatePolicyRequest,
        response: {
          201: withEtag(named(S.PolicyResponse, 'Policy', 'The policy recorded')),
          ...problemResponses({
            409: ['external_reference_conflict'],
            422: [
              'unknown_airport',
              'unknown_airline',
              'unknown_zip_code',
              'zip_code_not_covered',
              'city_mismatch',
              'quote_invalid',
              'quote_expired',
              'quote_mismatch',
            ],
          }),
        },
      },
      handler: async (request, reply) => {
        assertRiskMatchesProduct(request, request.body);
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.create',
          status: 201,
          run: (trx, caller) => createPolicy(deps, trx, caller, request.body),
          location: policyLocation,
          etag: policyEtag,
        });
      },
    });

    app.get('/policies', {
      schema: {
        tags,
        operationId: 'searchPolicies',
        summary: 'Search your policies',
        description:
          'Your policies of this environment matching every filter given, oldest first, paginated with cursor/limit. Following nextCursor until it is null returns every matching policy once, including those created while you page: a page never goes past policies still being written (it may then be short, or empty with a nextCursor: ask again).',
        querystring: S.SearchQuery,
        response: { 200: S.SearchResponse, ...problemResponses({ 422: ['invalid_cursor'] }) },
      },
      handler: async (request) => searchPolicies(deps, callerOf(request), request.query),
    });

    app.get('/policies/:policyNumber', {
      schema: {
        tags,
        operationId: 'getPolicy',
        summary: 'Read a policy',
        description:
          "One of your policies, with its version as ETag (send it in If-Match with a change). Another partner's policy, or one of another environment, is a 404 like a missing one.",
        params: S.PolicyParams,
        response: {
          200: withEtag(named(S.PolicyResponse, 'Policy', 'The policy')),
          ...problemResponses({ 404: ['policy_not_found'] }),
        },
      },
      handler: async (request, reply) => {
        const policy = await getPolicy(deps, callerOf(request), request.params.policyNumber);
        sendEtag(reply, policy.version);
        return policy;
      },
    });

    app.patch('/policies/:policyNumber/policyholder', {
      schema: {
        tags,
        operationId: 'changePolicyholder',
        summary: "Change the policyholder's contact details, or correct a name or the birth date",
        description: CHANGE_POLICYHOLDER_DESCRIPTION,
        headers: ChangeHeaders,
        params: S.PolicyParams,
        body: S.PolicyholderChangeRequest,
        response: {
          200: withEtag(named(S.PolicyResponse, 'Policy', 'The policy with its policyholder changed')),
          ...problemResponses({ 404: ['policy_not_found'], 409: ['policy_not_changeable'], 412: ['policy_changed'] }),
        },
      },
      handler: async (request, reply) => {
        const { policyNumber } = request.params;
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.policyholder',
          status: 200,
          key: { policyNumber: canonicalPolicyNumber(policyNumber), ...request.body },
          run: (trx, caller) =>
            changePolicyholder(deps, trx, caller, policyNumber, request.body, ifMatchVersions(request)),
          etag: policyEtag,
        });
      },
    });

    app.patch('/policies/:policyNumber/vehicle', {
      schema: {
        tags,
        operationId: 'registerVehicle',
        summary: 'Register the new vehicle of a motor policy',
        description: REGISTER_VEHICLE_DESCRIPTION,
        headers: ChangeHeaders,
        params: S.PolicyParams,
        body: S.VehicleRegistrationRequest,
        response: {
          200: withEtag(named(S.PolicyResponse, 'Policy', 'The policy with its vehicle registered')),
          ...problemResponses({ 404: ['policy_not_found'], 409: ['policy_not_changeable'], 412: ['policy_changed'] }),
        },
      },
      handler: async (request, reply) => {
        const { policyNumber } = request.params;
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.vehicle',
          status: 200,
          key: { policyNumber: canonicalPolicyNumber(policyNumber), ...request.body },
          run: (trx, caller) =>
            registerVehicle(deps, trx, caller, policyNumber, request.body, ifMatchVersions(request)),
          etag: policyEtag,
        });
      },
    });

    app.post('/policies/:policyNumber/activate', {
      schema: {
        tags,
        operationId: 'activatePolicy',
        summary: 'Activate a pending policy',
        description: ACTIVATE_POLICY_DESCRIPTION,
        headers: ChangeHeaders,
        params: S.PolicyParams,
        body: S.ActivatePolicyRequest,
        response: {
          200: withEtag(named(S.PolicyResponse, 'Policy', 'The policy in force')),
          ...problemResponses({ 404: ['policy_not_found'], 409: ['policy_not_activatable'], 412: ['policy_changed'] }),
        },
      },
      handler: async (request, reply) => {
        const { policyNumber } = request.params;
        // as for cancel: the policy is part of what the key stands for
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.activate',
          status: 200,
          key: { policyNumber: canonicalPolicyNumber(policyNumber), ...request.body },
          run: (trx, caller) => activatePolicy(deps, trx, caller, policyNumber, request.body, ifMatchVersions(request)),
          etag: policyEtag,
        });
      },
    });

    app.post('/policies/:policyNumber/cancel', {
      schema: {
        tags,
        operationId: 'cancelPolicy',
        summary: 'Cancel a policy',
        description: CANCEL_POLICY_DESCRIPTION,
        headers: ChangeHeaders,
        params: S.PolicyParams,
        body: S.CancelPolicyRequest,
        response: {
          200: withEtag(named(S.PolicyResponse, 'Policy', 'The policy cancelled')),
          ...problemResponses({ 404: ['policy_not_found'], 409: ['policy_not_cancellable'], 412: ['policy_changed'] }),
        },
      },
      handler: async (request, reply) => {
        const { policyNumber } = request.params;
        // the policy is part of what the key stands for: the same key on another policy is a reuse,
        // on the same policy written otherwise (case, spaces: the lookup ignores them) a retry
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.cancel',
          status: 200,
          key: { policyNumber: canonicalPolicyNumber(policyNumber), ...request.body },
          run: (trx, caller) => cancelPolicy(deps, trx, caller, policyNumber, request.body, ifMatchVersions(request)),
          etag: policyEtag,
        });
      },
    });

    app.post('/policies/:policyNumber/renew', {
      schema: {
        tags,
        operationId: 'renewPolicy',
        summary: 'Renew a policy for a new term',
        description: RENEW_POLICY_DESCRIPTION,
        headers: ChangeHeaders,
        params: S.PolicyParams,
        body: S.RenewPolicyRequest,
        response: {
          201: withEtag(named(S.PolicyResponse, 'Policy', 'The renewal: the policy of the new term')),
          ...problemResponses({
            404: ['policy_not_found'],
            409: ['policy_not_renewable', 'policy_already_renewed', 'external_reference_conflict'],
            412: ['policy_changed'],
          }),
        },
      },
      handler: async (request, reply) => {
        const { policyNumber } = request.params;
        // as for cancel: the policy renewed is part of what the key stands for
        return replyIdempotent(idempotencyDeps, request, reply, {
          operation: 'policies.renew',
          status: 201,
          key: { policyNumber: canonicalPolicyNumber(policyNumber), ...request.body },
          run: (trx, caller) => renewPolicy(deps, trx, caller, policyNumber, request.body, ifMatchVersions(request)),
          etag: policyEtag,
          location: policyLocation,
        });
      },
    });
  };
}
