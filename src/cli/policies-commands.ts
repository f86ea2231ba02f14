import { Option } from 'commander';
import { maskPhone } from '../notify/index.ts';
import { ENVIRONMENTS, requirePartner } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import {
  findPolicyForOperator,
  listPartnerPolicies,
  POLICY_STATUSES,
  PRODUCTS,
  type PolicyDeps,
  type PolicyView,
} from '../policies/index.ts';
import { pairs, table, when, type CommandKit } from './kit.ts';

/**
 * Operator commands for the policies partners record through the API to manage policies: a partner's
 * list (no personal data) and one policy with its history (personal data masked).
 */

/** j•••@example.com: enough to recognise an address read out on the phone, not to write to it. */
const maskEmail = (email: string): string => {
  const at = email.lastIndexOf('@');
  return at > 0 ? `${email[0]}•••${email.slice(at)}` : '•••';
};

/** The policyholder as an operator sees it: no name, birth date or street; email and phone masked. */
const maskedHolder = (p: PolicyView) => ({
  email: maskEmail(p.policyholder.email),
  phone: maskPhone(p.policyholder.phone),
  postalCode: p.policyholder.address.postalCode,
  country: p.policyholder.address.country,
});

export function policiesCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services } = kit;
  const deps = (): PolicyDeps => ({ db, keys: services().keys, now: () => new Date() });
  const names = (pointer: string) =>
    ({
      '/limit': '--limit',
      'querystring:/limit': '--limit',
      'querystring:/cursor': '--cursor',
      'querystring:/effectiveTo': '--effective-to',
    })[pointer];

  const policies = group(
    'policies',
    'Read the policies partners record through the API to manage policies',
    'parasol policies list acme-air --env production',
  );

  leaf(
    policies,
    'list <partner>',
    "A partner's policies of one environment, oldest first, without personal data",
    'parasol policies list acme-air --env production --status pending',
  )
    .addOption(
      new Option('--env <environment>', 'the environment the policies were recorded in')
        .choices(ENVIRONMENTS)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--status <status>', 'only policies in this status').choices(POLICY_STATUSES))
    .addOption(new Option('--product <product>', 'only policies of this product').choices(PRODUCTS))
    .option('--external-reference <reference>', "only the policy with this partner's reference")
    .option('--limit <n>', 'at most this many, 1 to 200 (default 50)')
    .option('--cursor <cursor>', 'the next page (the nextCursor of the previous page)')
    .action(
      run(
        async (
          ref: string,
          options: {
            env: Environment;
            status?: (typeof POLICY_STATUSES)[number];
            product?: (typeof PRODUCTS)[number];
            externalReference?: string;
            limit?: string;
            cursor?: string;
          },
        ) => {
          const partner = await requirePartner(db, ref);
          if (options.limit !== undefined && !/^([1-9]|[1-9][0-9]|1[0-9]{2}|200)$/.test(options.limit))
            throw new DomainError('validation_failed', 'The limit is not valid.', {
              errors: [{ field: '/limit', code: 'out_of_range', message: 'must be a whole number between 1 and 200' }],
            });
          const page = await listPartnerPolicies(
            deps(),
            { partnerId: partner.id, environment: options.env },
            {
              status: options.status,
              product: options.product,
              externalReference: options.externalReference,
              limit: options.limit,
              cursor: options.cursor,
            },
          );
          const lines = page.policies.length
            ? table(
                [
                  'POLICY',
                  'EXTERNAL REFERENCE',
                  'PRODUCT',
                  'STATUS',
                  'EFFECTIVE',
                  'EXPIRY',
                  'PREMIUM',
                  'RENEWS',
                  'RENEWED BY',
                  'RECORDED',
                ],
                page.policies.map((p) => [
                  p.policyNumber,
                  p.externalReference,
                  p.product,
                  p.status,
                  p.effectiveDate,
                  p.expiryDate,
                  `${formatMoney(p.premium.amount, p.premium.currency)} ${p.premium.frequency}`,
                  p.renews ?? '-',
                  renewedBy(p),
                  when(new Date(p.createdAt)),
                ]),
              )
            : [`No policies for ${partner.slug} in ${options.env}.`];
          if (page.nextCursor) lines.push('', `More: --cursor ${page.nextCursor}`);
          return { data: { partner: partner.slug, environment: options.env, ...page }, lines };
        },
        names,
      ),
    );

  leaf(
    policies,
    'show <policyNumber>',
    'One policy: its terms, the policyholder (masked) and its history',
    'parasol policies show PA-7K3M-9QXT',
  ).action(
    run(async (policyNumber: string) => {
      const found = await findPolicyForOperator(deps(), policyNumber);
      if (!found) throw new DomainError('policy_not_found', `No policy ${policyNumber}.`);
      const partner = await requirePartner(db, found.partnerId);
      const { policy: p, audit } = found;
      const holder = maskedHolder(p);
      const data = {
        partner: partner.slug,
        environment: found.environment,
        policyNumber: p.policyNumber,
        externalReference: p.externalReference,
        product: p.product,
        status: p.status,
        effectiveDate: p.effectiveDate,
        expiryDate: p.expiryDate,
        premium: p.premium,
        policyholder: holder,
        risk: p.risk,
        quoteReference: p.quoteReference,
        renews: p.renews,
        renewedBy: p.renewedBy,
        renewedByStatus: p.renewedByStatus,
        cancellation: p.cancellation,
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
        audit,
      };
      const lines = [
        `${p.policyNumber} (${partner.slug}, ${found.environment}) — ${p.product}, ${p.externalReference}`,
        ...pairs([
          ['status', p.status],
          ['cover', `${p.effectiveDate} to the day before ${p.expiryDate}`],
          ['premium', `${formatMoney(p.premium.amount, p.premium.currency)} ${p.premium.frequency}`],
          ['policyholder', `${holder.email}, ${holder.phone}, ${holder.postalCode} ${holder.country}`],
          [
            'cancellation',
            p.cancellation
              ? `${p.cancellation.reason} from ${p.cancellation.effectiveDate} (${when(new Date(p.cancellation.cancelledAt))})`
              : '-',
          ],
          ['renews', p.renews ?? '-'],
          ['renewed by', renewedBy(p)],
          ['recorded', when(new Date(p.createdAt))],
        ]),
        '',
        'History:',
        ...table(
          ['AT', 'ACTION', 'REASON', 'ACTOR'],
          audit.map((a) => [when(a.at), a.action, reasonOf(a.data), a.actor]),
        ),
      ];
      return { data, lines };
    }),
  );
}

/** The next term and its status ("PA-… (cancelled)"), or '-'. */
const renewedBy = (p: Pick<PolicyView, 'renewedBy' | 'renewedByStatus'>): string =>
  p.renewedBy ? `${p.renewedBy} (${p.renewedByStatus ?? '?'})` : '-';

/** The reason an audit row records (a cancellation's, an activation's, a correction's), or '-'. */
function reasonOf(data: unknown): string {
  const reason = (data as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' ? reason : '-';
}
