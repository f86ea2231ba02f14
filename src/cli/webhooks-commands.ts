import { ENVIRONMENTS, requirePartner } from '../partners/index.ts';
import { Option } from 'commander';
import {
  addEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type Resolver,
  type WebhookDeps,
  type WebhookEndpointView,
} from '../webhooks/index.ts';
import type { Environment, WebhookDeliveryStatus } from '../platform/db-schema.ts';
import { ACTION_TOKEN } from '../platform/action-token.ts';
import { DomainError } from '../platform/errors.ts';
import { table, when, type CommandKit } from './kit.ts';

/** Operator commands for partner webhooks (docs/webhooks.md): endpoints, secrets, test events, the delivery log. */

/** `enabled`, or `disabled: <why> since <when>` (manual: the partner or an operator; gone: a 410; failing: for days). */
const stateOf = (e: WebhookEndpointView) =>
  e.enabled
    ? 'enabled'
    : `disabled: ${e.pausedReason ?? 'manual'}${e.pausedAt ? ` since ${when(new Date(e.pausedAt))}` : ''}`;

const endpointLine = (e: WebhookEndpointView) => [
  e.id,
  e.environment,
  stateOf(e),
  e.eventTypes ? e.eventTypes.join(',') : 'all',
  e.url,
];

export function webhooksCommands(kit: CommandKit, extras: { resolve?: Resolver | undefined } = {}): void {
  const { group, leaf, run, db, actor, services } = kit;
  const deps = (): WebhookDeps => {
    const { config, keys, jobs } = services();
    return {
      db,
      jobs,
      keys,
      allowPrivate: config.webhooksAllowPrivate,
      now: () => new Date(),
      ...(extras.resolve ? { resolve: extras.resolve } : {}),
    };
  };
  const names = (pointer: string) =>
    pointer.startsWith('/eventTypes')
      ? '--events'
      : {
          '/url': '--url',
          '/description': '--description',
          '/limit': '--limit',
          'querystring:/limit': '--limit',
          'querystring:/cursor': '--cursor',
          '/actionToken': '--once',
        }[pointer];
  /**
   * `--once <token>` of the two commands that queue a delivery (test, redeliver): the use case's
   * one-time token (OperatorOnce), as the operator page's; a run retried with the same token does it
   * once and says so (`replayed`). A token already used on another partner's endpoint is refused.
   */
  const onceOption = (twice: string) =>
    ['--once <token>', `a token of 16 to 64 letters, digits, - or _: the same token twice ${twice}`] as const;
  /**
   * The use case refuses a token it will not take as a page's stale form ("open the page again"),
   * which means nothing on a command line: the CLI says what is wrong with `--once` in its own words
   * (the console and operator pages keep theirs). A well-formed token refused was used already for
   * another partner's endpoint or delivery.
   */
  const withOnce = async <T>(token: string | undefined, act: () => Promise<T>): Promise<T> => {
    try {
      return await act();
    } catch (error) {
      const errors = error instanceof DomainError ? error.extra.errors : undefined;
      if (token === undefined || !(error instanceof DomainError) || !errors?.some((e) => e.field === '/actionToken'))
        throw error;
      const message = ACTION_TOKEN.test(token)
        ? "this token was used for another partner's endpoint; use a new one"
        : 'must be 16 to 64 letters, digits, - or _';
      throw new DomainError(error.code, error.detail, {
        ...error.extra,
        errors: errors.map((e) => (e.field === '/actionToken' ? { ...e, message } : e)),
      });
    }
  };
  const dateText = (iso: string | null) => (iso ? when(new Date(iso)) : '-');

  const webhooks = group(
    'webhooks',
    "Manage a partner's webhook endpoints and read the delivery log",
    'parasol webhooks list acme-air',
  );

  leaf(
    webhooks,
    'add <partner>',
    'Register an endpoint; its signing secret is shown once',
    'parasol webhooks add acme-air --env sandbox --url https://hooks.acme.example/parasol --events claim.opened,claim.paid',
  )
    .addOption(
      new Option('--env <environment>', 'environment whose events the endpoint receives')
        .choices(ENVIRONMENTS)
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--url <url>',
      'https URL on the public internet (private addresses only with PARASOL_WEBHOOKS_ALLOW_PRIVATE=on)',
    )
    .option('--events <list>', `comma-separated event types (default: all): ${WEBHOOK_EVENT_TYPES.join(', ')}`)
    .option('--description <text>', 'free text to recognise the endpoint (at most 200 characters)')
    .action(
      run(async (ref: string, options: { env: Environment; url: string; events?: string; description?: string }) => {
        const partner = await requirePartner(db, ref);
        const eventTypes =
          options.events === undefined ? undefined : options.events.split(',').filter((t) => t.trim() !== '');
        const { endpoint, secret } = await addEndpoint(
          deps(),
          { actor, partnerId: partner.id, environment: options.env },
          { url: options.url, eventTypes, description: options.description },
        );
        const warning = 'Store this signing secret now: it is stored encrypted and will not be shown again.';
        return {
          data: { partner: partner.slug, endpoint, secret, warning },
          lines: [
            `Registered ${endpoint.environment} webhook endpoint ${endpoint.id} for ${partner.slug}: ${endpoint.url}`,
            `Events: ${endpoint.eventTypes ? endpoint.eventTypes.join(', ') : 'all'}`,
            '',
            `  ${secret}`,
            '',
            warning,
          ],
        };
      }, names),
    );

  leaf(
    webhooks,
    'list <partner>',
    "List a partner's webhook endpoints (never their secrets)",
    'parasol webhooks list acme-air --env production',
  )
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .action(
      run(async (ref: string, options: { env?: Environment }) => {
        const partner = await requirePartner(db, ref);
        const endpoints = await listEndpoints({ db }, { actor, partnerId: partner.id, environment: options.env });
        const lines = endpoints.length
          ? table(['ID', 'ENV', 'STATE', 'EVENTS', 'URL'], endpoints.map(endpointLine))
          : [`${partner.slug} has no webhook endpoints${options.env ? ` in ${options.env}` : ''}.`];
        return { data: { partner: partner.slug, endpoints }, lines };
      }),
    );

  leaf(
    webhooks,
    'remove <endpoint-id>',
    'Remove an endpoint: nothing more is sent, pending deliveries end failed',
    'parasol webhooks remove 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a',
  ).action(
    run(async (id: string) => {
      const endpoint = await removeEndpoint(deps(), { actor }, id);
      return {
        data: { endpoint, removed: true },
        lines: [`Removed ${endpoint.environment} webhook endpoint ${endpoint.id} (${endpoint.url}).`],
      };
    }),
  );

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    leaf(
      webhooks,
      `${name} <endpoint-id>`,
      enabled
        ? 'Resume sending to a disabled endpoint'
        : 'Pause an endpoint: no new deliveries, pending ones end failed',
      `parasol webhooks ${name} 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a`,
    ).action(
      run(async (id: string) => {
        const endpoint = await setEndpointEnabled(deps(), { actor }, id, enabled);
        return {
          data: { endpoint },
          lines: [`Webhook endpoint ${endpoint.id} is ${stateOf(endpoint)}.`],
        };
      }),
    );
  }

  leaf(
    webhooks,
    'rotate-secret <endpoint-id>',
    'Give an endpoint a new signing secret (shown once; the old one also signs for 24 h)',
    'parasol webhooks rotate-secret 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a',
  ).action(
    run(async (id: string) => {
      const { endpoint, secret, previousSecretValidUntil } = await rotateSecret(deps(), { actor }, id);
      const warning = 'Store this signing secret now: it will not be shown again.';
      return {
        data: { endpoint, secret, previousSecretValidUntil, warning },
        lines: [
          `New signing secret for webhook endpoint ${endpoint.id}:`,
          '',
          `  ${secret}`,
          '',
          warning,
          `Until ${when(new Date(previousSecretValidUntil))} every message is signed with both the new and the previous secret.`,
        ],
      };
    }),
  );

  leaf(
    webhooks,
    'test <endpoint-id>',
    'Send a webhook.test event to one endpoint (delivered by the workers), as "Send a test event" on the operator webhooks page',
    'parasol webhooks test 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a',
  )
    .option(...onceOption('sends one test event'))
    .action(
      run(async (id: string, options: { once?: string }) => {
        const sent = await withOnce(options.once, () =>
          sendTestEvent(deps(), { actor }, id, { actionToken: options.once }),
        );
        return {
          data: sent,
          lines: [
            sent.replayed
              ? `Endpoint ${id}: test event ${sent.eventId} sent already with this --once token (delivery ${sent.deliveryId}), nothing queued again.`
              : `Queued test event ${sent.eventId} (delivery ${sent.deliveryId}). Follow it with: parasol webhooks deliveries <partner>`,
          ],
        };
      }, names),
    );

  leaf(
    webhooks,
    'redeliver <delivery-id>',
    'Send an ended delivery again (same webhook-id), as "Send again" on the operator webhooks page',
    'parasol webhooks redeliver 5d0c6a52-8f0e-4a43-9d4c-1b8f2a7e3c10',
  )
    .option(...onceOption('sends it again once'))
    .action(
      run(async (id: string, options: { once?: string }) => {
        const sent = await withOnce(options.once, () =>
          redeliver(deps(), { actor }, id, { actionToken: options.once }),
        );
        return {
          data: sent,
          lines: [
            sent.replayed
              ? `Delivery ${sent.deliveryId}: sent again already with this --once token (attempt ${sent.attempt}), nothing queued again.`
              : `Queued delivery ${sent.deliveryId} again (event ${sent.eventId}, attempt ${sent.attempt}). Follow it with: parasol webhooks deliveries <partner>`,
          ],
        };
      }, names),
    );

  leaf(
    webhooks,
    'deliveries <partner>',
    "A partner's webhook delivery log, newest first, with every attempt",
    'parasol webhooks deliveries acme-air --env sandbox --status failed',
  )
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .addOption(new Option('--status <status>', 'only deliveries in this status').choices(WEBHOOK_DELIVERY_STATUSES))
    .option('--endpoint <endpoint-id>', 'only deliveries to this endpoint')
    .option('--limit <n>', 'at most this many, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'the next page (the nextCursor of the previous page)')
    .action(
      run(
        async (
          ref: string,
          options: {
            env?: Environment;
            status?: WebhookDeliveryStatus;
            endpoint?: string;
            limit?: string;
            cursor?: string;
          },
        ) => {
          const partner = await requirePartner(db, ref);
          let limit: number | undefined;
          if (options.limit !== undefined) {
            if (!/^\d+$/.test(options.limit))
              throw new DomainError('validation_failed', 'The limit is not valid.', {
                errors: [
                  { field: '/limit', code: 'out_of_range', message: 'must be a whole number between 1 and 100' },
                ],
              });
            limit = Number(options.limit);
          }
          const page = await listDeliveries(
            { db, keys: services().keys },
            { actor, partnerId: partner.id, environment: options.env },
            { limit, cursor: options.cursor, endpointId: options.endpoint, status: options.status },
          );
          const lines = page.deliveries.length
            ? table(
                ['CREATED', 'EVENT', 'TYPE', 'ENV', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT ATTEMPT', 'ERROR'],
                page.deliveries.map((d) => [
                  dateText(d.createdAt),
                  d.eventId,
                  d.eventType,
                  d.environment,
                  d.status,
                  String(d.attempts),
                  d.lastStatusCode === null ? '-' : String(d.lastStatusCode),
                  dateText(d.nextAttemptAt),
                  d.lastError ?? '-',
                ]),
              )
            : [`No webhook deliveries for ${partner.slug}${options.env ? ` in ${options.env}` : ''}.`];
          if (page.nextCursor) lines.push('', `More: --cursor ${page.nextCursor}`);
          return { data: { partner: partner.slug, ...page }, lines };
        },
        names,
      ),
    );
}
