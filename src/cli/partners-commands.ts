import { Option } from 'commander';
import {
  APIS,
  createApiKey,
  createPartner,
  ENVIRONMENTS,
  parseApiName,
  requirePartner,
  revokeApiKey,
  setAgreement,
  setConfiguration,
  setDocuments,
  setSubscription,
  signAgreement,
  type Agreement,
  type ApiKeyInfo,
  type Configuration,
  type DelayTier,
  type DocumentSet,
  type Environment,
  type Formula,
} from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { amountOrError, collect, fieldMap, pairs, table, UUID, when, type CommandKit, type FieldNames } from './kit.ts';

/** Partner administration: partners, their agreement, API subscriptions, coverage configuration and API keys. */
export function partnersCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  // ---------------------------------------------------------------------------------------------
  // partners

  const partners = group('partners', 'Create, list and show partners', 'parasol partners list');

  leaf(
    partners,
    'create',
    'Create a partner (no agreement, subscription or key yet)',
    'parasol partners create --slug acme-air --name "Acme Air"',
  )
    .requiredOption('--slug <slug>', 'lowercase letters, digits and dashes; used in URLs and commands')
    .requiredOption('--name <name>', 'display name')
    .action(
      run(
        async (options: { slug: string; name: string }) => {
          const partner = await createPartner(db, actor, { slug: options.slug, name: options.name });
          return { data: { partner }, lines: [`Created partner ${partner.slug} (${partner.id}).`] };
        },
        fieldMap({ '/slug': '--slug', '/name': '--name' }),
      ),
    );

  leaf(partners, 'list', 'List all partners', 'parasol partners list').action(
    run(async () => {
      const all = await repo.listPartners(db);
      const lines = all.length
        ? table(
            ['SLUG', 'NAME', 'ID', 'CREATED'],
            all.map((p) => [p.slug, p.name, p.id, when(p.createdAt)]),
          )
        : ['No partners yet. Create one with: parasol partners create --slug <slug> --name <name>'];
      return { data: { partners: all }, lines };
    }),
  );

  leaf(
    partners,
    'show <partner>',
    'Show a partner: agreement, subscriptions, current configuration and keys',
    'parasol partners show acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const [agreement, subscriptions, configuration, keys] = await Promise.all([
        repo.findAgreement(db, partner.id),
        repo.listSubscriptions(db, partner.id),
        repo.findCurrentConfiguration(db, partner.id),
        repo.listApiKeys(db, partner.id),
      ]);
      const summary = keysSummary(keys);
      const lines = [
        ...pairs([
          ['Partner', `${partner.slug} (${partner.id})`],
          ['Name', partner.name],
          ['Created', when(partner.createdAt)],
          ['Subscriptions', subscriptions.length ? subscriptions.join(', ') : 'none'],
          [
            'Keys',
            summary.length
              ? summary.map((s) => `${s.environment} ${s.active} active, ${s.revoked} revoked`).join('; ')
              : 'none',
          ],
        ]),
        '',
        ...agreementLines(agreement),
        '',
        ...configurationLines(configuration),
      ];
      return {
        data: {
          partner,
          agreement: agreement ? agreementJson(agreement) : null,
          subscriptions,
          configuration: configuration ? configurationJson(configuration) : null,
          keys: summary,
        },
        lines,
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // agreement

  const agreement = group(
    'agreement',
    "Set, sign and show a partner's agreement with the insurer",
    'parasol agreement show acme-air',
  );

  leaf(
    agreement,
    'set <partner>',
    'Set the terms of the draft agreement (a signed agreement cannot change)',
    'parasol agreement set acme-air --formulas delay,cancellation,delay_and_cancellation --currency EUR --tax-rate 0.09 --commission-min 0 --commission-max 0.3 --compensation-min 10.00 --compensation-max 500.00',
  )
    .requiredOption(
      '--formulas <list>',
      'comma-separated allowed formulas: delay, cancellation, delay_and_cancellation',
    )
    .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. EUR')
    .requiredOption('--tax-rate <rate>', 'insurance premium tax, decimal between 0 and 0.99 (0.09 = 9 %)')
    .requiredOption('--commission-min <rate>', 'lowest commission rate the partner may choose')
    .requiredOption('--commission-max <rate>', 'highest commission rate the partner may choose (at most 0.9)')
    .requiredOption('--compensation-min <amount>', 'lowest compensation per passenger, in major units (10.00)')
    .requiredOption('--compensation-max <amount>', 'highest compensation per passenger, in major units (500.00)')
    .action(
      run(
        async (
          ref: string,
          options: {
            formulas: string;
            currency: string;
            taxRate: string;
            commissionMin: string;
            commissionMax: string;
            compensationMin: string;
            compensationMax: string;
          },
        ) => {
          const currency = options.currency.trim().toUpperCase();
          const errors: FieldError[] = [];
          let compensationMin = 0;
          let compensationMax = 0;
          if (!/^[A-Z]{3}$/.test(currency)) {
            errors.push({
              field: '/currency',
              code: 'invalid_format',
              message: 'must be an ISO 4217 code such as EUR',
            });
          } else {
            compensationMin = amountOrError(options.compensationMin, currency, '/compensationMin', errors);
            compensationMax = amountOrError(options.compensationMax, currency, '/compensationMax', errors);
          }
          if (errors.length) throw new DomainError('validation_failed', 'The agreement is not valid.', { errors });
          const partner = await requirePartner(db, ref);
          const saved = await setAgreement(db, actor, partner.id, {
            allowedFormulas: options.formulas
              .split(',')
              .map((f) => f.trim())
              .filter((f) => f !== '') as Formula[],
            currency,
            taxRate: options.taxRate.trim(),
            commissionMin: options.commissionMin.trim(),
            commissionMax: options.commissionMax.trim(),
            compensationMin,
            compensationMax,
          });
          return {
            data: { partner: partner.slug, agreement: agreementJson(saved) },
            lines: [
              `Agreement of ${partner.slug} saved as a draft; sign it with: parasol agreement sign ${partner.slug}`,
              '',
              ...agreementLines(saved),
            ],
          };
        },
        fieldMap({
          '/allowedFormulas': '--formulas',
          '/currency': '--currency',
          '/taxRate': '--tax-rate',
          '/commissionMin': '--commission-min',
          '/commissionMax': '--commission-max',
          '/compensationMin': '--compensation-min',
          '/compensationMax': '--compensation-max',
        }),
      ),
    );

  leaf(
    agreement,
    'sign <partner>',
    'Sign the agreement: unlocks preproduction and production keys',
    'parasol agreement sign acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const before = await repo.findAgreement(db, partner.id);
      const signed = await signAgreement(db, actor, partner.id);
      const already = before?.status === 'signed';
      return {
        data: { partner: partner.slug, alreadySigned: already, agreement: agreementJson(signed) },
        lines: [
          already
            ? `The agreement of ${partner.slug} was already signed (${when(signed.signedAt)} by ${signed.signedBy}).`
            : `Signed the agreement of ${partner.slug}.`,
        ],
      };
    }),
  );

  leaf(agreement, 'show <partner>', "Show a partner's agreement", 'parasol agreement show acme-air').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const found = await repo.findAgreement(db, partner.id);
      return {
        data: { partner: partner.slug, agreement: found ? agreementJson(found) : null },
        lines: agreementLines(found),
      };
    }),
  );

  const DOCUMENT_FLAGS = {
    '/ipid/url': '--ipid-url',
    '/ipid/version': '--ipid-version',
    '/ipid/sha256': '--ipid-sha256',
    '/terms/url': '--terms-url',
    '/terms/version': '--terms-version',
    '/terms/sha256': '--terms-sha256',
    '/insurer/name': '--insurer-name',
    '/insurer/registration': '--insurer-registration',
    '/insurer/address': '--insurer-address',
    '/insurer/regulator': '--insurer-regulator',
    '/insurer/complaints/email': '--complaints-email',
    '/insurer/complaints/url': '--complaints-url',
  };

  leaf(
    agreement,
    'documents <partner>',
    "Attach a new version of the agreement's pre-contract documents (IPID, terms) and insurer identity; applies to new quotes",
    'parasol agreement documents acme-air --ipid-url https://insurer.example/ipid-3.pdf --ipid-version IPID-3 --ipid-sha256 <64 hex> --terms-url https://insurer.example/cg-5.pdf --terms-version CG-5 --terms-sha256 <64 hex> --insurer-name "Parasol Assurances SA" --insurer-registration "SA, RCS Paris 123 456 789" --insurer-address "1 rue X, 75001 Paris" --insurer-regulator "ACPR, 4 place de Budapest, 75009 Paris" --complaints-email reclamations@insurer.example',
  )
    .requiredOption('--ipid-url <url>', 'https URL of the insurance product information document')
    .requiredOption('--ipid-version <label>', "the IPID's version label (1-40 characters)")
    .requiredOption('--ipid-sha256 <hex>', 'SHA-256 of the IPID file (sha256sum)')
    .requiredOption('--terms-url <url>', 'https URL of the terms and conditions')
    .requiredOption('--terms-version <label>', "the terms' version label (1-40 characters)")
    .requiredOption('--terms-sha256 <hex>', 'SHA-256 of the terms file (sha256sum)')
    .requiredOption('--insurer-name <name>', "the insurer's legal name")
    .requiredOption('--insurer-registration <text>', 'legal form and registration number')
    .requiredOption('--insurer-address <text>', 'registered office')
    .requiredOption('--insurer-regulator <text>', 'supervisory authority')
    .requiredOption('--complaints-email <email>', 'where customers send complaints')
    .option('--complaints-url <url>', 'https URL of the complaints procedure')
    .action(
      run(
        async (
          ref: string,
          o: {
            ipidUrl: string;
            ipidVersion: string;
            ipidSha256: string;
            termsUrl: string;
            termsVersion: string;
            termsSha256: string;
            insurerName: string;
            insurerRegistration: string;
            insurerAddress: string;
            insurerRegulator: string;
            complaintsEmail: string;
            complaintsUrl?: string;
          },
        ) => {
          const partner = await requirePartner(db, ref);
          const saved = await setDocuments(db, actor, partner.id, {
            ipid: { url: o.ipidUrl, version: o.ipidVersion, sha256: o.ipidSha256 },
            terms: { url: o.termsUrl, version: o.termsVersion, sha256: o.termsSha256 },
            insurer: {
              name: o.insurerName,
              registration: o.insurerRegistration,
              address: o.insurerAddress,
              regulator: o.insurerRegulator,
              complaints: { email: o.complaintsEmail, url: o.complaintsUrl ?? null },
            },
          });
          return {
            data: { partner: partner.slug, documents: saved },
            lines: [
              `Documents version ${saved.version} attached to the agreement of ${partner.slug}: new quotes carry them.`,
              ...documentLines(saved),
            ],
          };
        },
        fieldMap(DOCUMENT_FLAGS),
      ),
    );

  leaf(
    agreement,
    'documents-show <partner>',
    "Show the versions of the agreement's pre-contract documents, newest first",
    'parasol agreement documents-show acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const all = await repo.listDocuments(db, partner.id);
      return {
        data: { partner: partner.slug, documents: all },
        lines: all.length
          ? all.flatMap((d, i) => [
              ...(i ? [''] : []),
              `Version ${d.version}${i ? '' : ' (current)'}:`,
              ...documentLines(d),
            ])
          : [`No documents attached to the agreement of ${partner.slug}: it cannot quote.`],
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // subscriptions

  const subscriptions = group(
    'subscriptions',
    `Choose which APIs a partner's keys reach (${APIS.join(', ')})`,
    'parasol subscriptions list acme-air',
  );
  const apiNames = fieldMap({ '/api': '<api>' });

  for (const [name, subscribed] of [
    ['add', true],
    ['remove', false],
  ] as const) {
    leaf(
      subscriptions,
      `${name} <partner> <api>`,
      subscribed ? `Subscribe a partner to an API (${APIS.join(', ')})` : 'Unsubscribe a partner from an API',
      `parasol subscriptions ${name} acme-air flight-delay`,
    ).action(
      run(async (ref: string, apiText: string) => {
        const api = parseApiName(apiText);
        const partner = await requirePartner(db, ref);
        const before = await repo.listSubscriptions(db, partner.id);
        const after = await setSubscription(db, actor, partner.id, api, subscribed);
        const unchanged = before.includes(api) === subscribed;
        const message = subscribed
          ? unchanged
            ? `${partner.slug} was already subscribed to ${api}.`
            : `Subscribed ${partner.slug} to ${api}.`
          : unchanged
            ? `${partner.slug} was not subscribed to ${api}.`
            : `Unsubscribed ${partner.slug} from ${api}.`;
        return {
          data: { partner: partner.slug, api, changed: !unchanged, subscriptions: after },
          lines: [message, `Subscriptions: ${after.length ? after.join(', ') : 'none'}`],
        };
      }, apiNames),
    );
  }

  leaf(
    subscriptions,
    'list <partner>',
    "List a partner's API subscriptions",
    'parasol subscriptions list acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listSubscriptions(db, partner.id);
      return {
        data: { partner: partner.slug, subscriptions: list },
        lines: list.length ? list : [`${partner.slug} has no subscriptions.`],
      };
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // config

  const config = group(
    'config',
    "Set and show a partner's coverage configuration (versioned)",
    'parasol config show acme-air --history',
  );

  leaf(
    config,
    'set <partner>',
    'Save a new configuration version, checked against the agreement',
    'parasol config set acme-air --formula delay_and_cancellation --tier 120=50.00 --tier 180=100.00 --cancellation 150.00 --commission 0.2',
  )
    .requiredOption('--formula <formula>', 'delay, cancellation or delay_and_cancellation')
    .option(
      '--tier <minutes=amount>',
      'delay tier: minutes of arrival delay = amount paid, in major units (repeatable)',
      collect,
      [],
    )
    .option('--cancellation <amount>', 'amount paid for a cancelled leg, in major units')
    .requiredOption('--commission <rate>', "partner's commission rate, within the agreement's bounds (0.2 = 20 %)")
    .action(
      async (ref: string, options: { formula: string; tier: string[]; cancellation?: string; commission: string }) => {
        const tierNames: FieldNames = (pointer) => {
          const tier = /^\/delayTiers\/(\d+)(\/|$)/.exec(pointer);
          if (tier) return `--tier ${options.tier[Number(tier[1])] ?? `#${Number(tier[1]) + 1}`}`;
          return {
            '/formula': '--formula',
            '/commissionRate': '--commission',
            '/delayTiers': '--tier',
            '/cancellationAmount': '--cancellation',
          }[pointer];
        };
        await run(async () => {
          const partner = await requirePartner(db, ref);
          const terms = await repo.findAgreement(db, partner.id);
          if (!terms)
            throw new DomainError(
              'agreement_missing',
              `${partner.slug} has no agreement; set it first with: parasol agreement set ${partner.slug} …`,
            );
          const errors: FieldError[] = [];
          const delayTiers: DelayTier[] = options.tier.map((text, i) => {
            const match = /^\s*(\d+)\s*=\s*(\S+)\s*$/.exec(text);
            if (!match) {
              errors.push({
                field: `/delayTiers/${i}`,
                code: 'invalid_format',
                message: 'must be <minutes>=<amount>, e.g. 120=50.00',
              });
              return { minDelayMinutes: 0, amount: 0 };
            }
            return {
              minDelayMinutes: Number(match[1]),
              amount: amountOrError(match[2] ?? '', terms.currency, `/delayTiers/${i}/amount`, errors),
            };
          });
          const cancellationAmount =
            options.cancellation === undefined
              ? 0
              : amountOrError(options.cancellation, terms.currency, '/cancellationAmount', errors);
          const commissionRate = options.commission.trim();
          if (!/^\d+(\.\d{1,5})?$/.test(commissionRate)) {
            errors.push({
              field: '/commissionRate',
              code: 'invalid_format',
              message: 'must be a decimal rate with at most 5 decimals, e.g. 0.2',
            });
          }
          if (errors.length) throw new DomainError('validation_failed', 'The configuration is not valid.', { errors });
          const saved = await setConfiguration(db, actor, partner.id, {
            formula: options.formula as Formula,
            delayTiers,
            cancellationAmount,
            commissionRate,
          });
          return {
            data: { partner: partner.slug, configuration: configurationJson(saved) },
            lines: [
              `Saved configuration version ${saved.version} of ${partner.slug}.`,
              '',
              ...configurationLines(saved),
            ],
          };
        }, tierNames)();
      },
    );

  leaf(
    config,
    'show <partner>',
    'Show the current configuration (or every version with --history)',
    'parasol config show acme-air --history',
  )
    .option('--history', 'list every version, newest first')
    .action(
      run(async (ref: string, options: { history?: boolean }) => {
        const partner = await requirePartner(db, ref);
        if (!options.history) {
          const current = await repo.findCurrentConfiguration(db, partner.id);
          return {
            data: { partner: partner.slug, configuration: current ? configurationJson(current) : null },
            lines: configurationLines(current),
          };
        }
        const versions = await repo.listConfigurations(db, partner.id);
        const lines = versions.length
          ? table(
              ['VERSION', 'FORMULA', 'DELAY TIERS', 'CANCELLATION', 'COMMISSION', 'CREATED', 'BY'],
              versions.map((c) => [
                String(c.version),
                c.formula,
                c.delayTiers.length
                  ? c.delayTiers.map((t) => `${t.minDelayMinutes}=${formatMoney(t.amount, c.currency)}`).join(', ')
                  : '-',
                c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-',
                c.commissionRate,
                when(c.createdAt),
                c.createdBy,
              ]),
            )
          : [`${partner.slug} has no configuration yet.`];
        return { data: { partner: partner.slug, configurations: versions.map(configurationJson) }, lines };
      }),
    );

  // ---------------------------------------------------------------------------------------------
  // keys

  const keys = group('keys', 'Create, list and revoke API keys', 'parasol keys list acme-air');

  leaf(
    keys,
    'create <partner>',
    'Create an API key; its plaintext is shown once',
    'parasol keys create acme-air --env sandbox --label "staging server"',
  )
    .addOption(
      new Option('--env <environment>', 'environment of the key (preproduction and production need a signed agreement)')
        .choices(ENVIRONMENTS)
        .makeOptionMandatory(),
    )
    .option('--label <text>', 'free text to recognise the key later')
    .action(
      run(async (ref: string, options: { env: Environment; label?: string }) => {
        const partner = await requirePartner(db, ref);
        const { key, plaintext } = await createApiKey(db, actor, {
          partnerId: partner.id,
          environment: options.env,
          label: options.label,
        });
        const warning = 'Store this key now: it is not stored in clear and will not be shown again.';
        return {
          data: { partner: partner.slug, key: keyJson(key), plaintext, warning },
          lines: [
            `Created ${key.environment} key ${key.id} for ${partner.slug}${key.label ? ` (${key.label})` : ''}:`,
            '',
            `  ${plaintext}`,
            '',
            warning,
          ],
        };
      }),
    );

  leaf(
    keys,
    'list <partner>',
    "List a partner's API keys (never their plaintext)",
    'parasol keys list acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listApiKeys(db, partner.id);
      const lines = list.length
        ? table(
            ['ID', 'KEY', 'ENV', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
            list.map((k) => [
              k.id,
              k.display,
              k.environment,
              k.label ?? '-',
              when(k.createdAt),
              when(k.lastUsedAt),
              when(k.revokedAt),
            ]),
          )
        : [`${partner.slug} has no API keys.`];
      return { data: { partner: partner.slug, keys: list.map(keyJson) }, lines };
    }),
  );

  leaf(
    keys,
    'revoke <partner> <keyId>',
    'Revoke an API key at once (the id comes from keys list)',
    'parasol keys revoke acme-air 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a',
  ).action(
    run(async (ref: string, keyId: string) => {
      const partner = await requirePartner(db, ref);
      if (!UUID.test(keyId)) throw new DomainError('api_key_not_found', `No API key ${keyId} for this partner.`);
      const startedAt = Date.now();
      const key = await revokeApiKey(db, actor, partner.id, keyId);
      const already = key.revokedAt !== null && key.revokedAt.getTime() < startedAt;
      return {
        data: { partner: partner.slug, alreadyRevoked: already, key: keyJson(key) },
        lines: [
          already
            ? `Key ${key.display} (${key.id}) was already revoked on ${when(key.revokedAt)}.`
            : `Revoked ${key.environment} key ${key.display} (${key.id}) of ${partner.slug}.`,
        ],
      };
    }),
  );
}

const moneyJson = (amount: number, currency: string) => ({ amount, currency });

function agreementJson(a: Agreement) {
  return {
    status: a.status,
    allowedFormulas: a.allowedFormulas,
    currency: a.currency,
    taxRate: a.taxRate,
    commissionMin: a.commissionMin,
    commissionMax: a.commissionMax,
    compensationMin: moneyJson(a.compensationMin, a.currency),
    compensationMax: moneyJson(a.compensationMax, a.currency),
    signedAt: a.signedAt,
    signedBy: a.signedBy,
  };
}

function agreementLines(a: Agreement | undefined): string[] {
  if (!a) return ['Agreement  none yet (parasol agreement set <partner> …)'];
  return pairs([
    ['Agreement', a.status === 'signed' ? `signed ${when(a.signedAt)} by ${a.signedBy ?? '?'}` : 'draft (not signed)'],
    ['Formulas', a.allowedFormulas.join(', ')],
    ['Currency', a.currency],
    ['Tax rate', a.taxRate],
    ['Commission', `${a.commissionMin} – ${a.commissionMax}`],
    ['Compensation', `${formatMoney(a.compensationMin, a.currency)} – ${formatMoney(a.compensationMax, a.currency)}`],
  ]);
}

function configurationJson(c: Configuration) {
  return {
    id: c.id,
    version: c.version,
    formula: c.formula,
    delayTiers: c.delayTiers.map((t) => ({
      minDelayMinutes: t.minDelayMinutes,
      amount: moneyJson(t.amount, c.currency),
    })),
    cancellationAmount: moneyJson(c.cancellationAmount, c.currency),
    commissionRate: c.commissionRate,
    currency: c.currency,
    createdBy: c.createdBy,
    createdAt: c.createdAt,
  };
}

function configurationLines(c: Configuration | undefined): string[] {
  if (!c) return ['Configuration  none yet (parasol config set <partner> …)'];
  return pairs([
    ['Configuration', `version ${c.version}, ${when(c.createdAt)} by ${c.createdBy}`],
    ['Formula', c.formula],
    [
      'Delay tiers',
      c.delayTiers.length
        ? c.delayTiers.map((t) => `≥ ${t.minDelayMinutes} min: ${formatMoney(t.amount, c.currency)}`).join(', ')
        : '-',
    ],
    ['Cancellation', c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-'],
    ['Commission', c.commissionRate],
  ]);
}

function keyJson(k: ApiKeyInfo) {
  return {
    id: k.id,
    display: k.display,
    environment: k.environment,
    label: k.label,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

function keysSummary(list: ApiKeyInfo[]): { environment: Environment; active: number; revoked: number }[] {
  return ENVIRONMENTS.map((environment) => {
    const of = list.filter((k) => k.environment === environment);
    return {
      environment,
      active: of.filter((k) => !k.revokedAt).length,
      revoked: of.filter((k) => k.revokedAt).length,
    };
  }).filter((s) => s.active + s.revoked > 0);
}

function documentLines(d: DocumentSet): string[] {
  return pairs([
    ['IPID', `${d.ipid.version}  ${d.ipid.url}  sha256 ${d.ipid.sha256}`],
    ['Terms', `${d.terms.version}  ${d.terms.url}  sha256 ${d.terms.sha256}`],
    ['Insurer', `${d.insurer.name}, ${d.insurer.registration}`],
    ['Address', d.insurer.address],
    ['Regulator', d.insurer.regulator],
    ['Complaints', [d.insurer.complaints.email, d.insurer.complaints.url].filter(Boolean).join('  ')],
    ['Set', `${when(d.createdAt)} by ${d.createdBy}`],
  ]);
}
