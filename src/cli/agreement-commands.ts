import type { Command } from 'commander';
import {
  agreementTermsFrom,
  amendAgreement,
  insurerOfPlatform,
  parseEffective,
  requirePartner,
  setAgreement,
  setDocuments,
  signAgreement,
  type AgreementInput,
} from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { fieldMap, when, type CommandKit } from './kit.ts';
import {
  agreementHistoryJson,
  agreementHistoryLines,
  agreementJson,
  agreementLines,
  changeText,
  documentLines,
  fieldErrorLines,
} from './partner-output.ts';

interface TermOptions {
  formulas: string;
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: string;
  compensationMax: string;
}

/** The terms options shared by `agreement set` and `agreement amend`. */
function termOptions(command: Command): Command {
  return command
    .requiredOption(
      '--formulas <list>',
      'comma-separated allowed formulas: delay, cancellation, delay_and_cancellation',
    )
    .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. EUR')
    .requiredOption('--tax-rate <rate>', 'insurance premium tax, decimal between 0 and 0.99 (0.09 = 9 %)')
    .requiredOption('--commission-min <rate>', 'lowest commission rate the partner may choose')
    .requiredOption('--commission-max <rate>', 'highest commission rate the partner may choose (at most 0.9)')
    .requiredOption('--compensation-min <amount>', 'lowest compensation per passenger, in major units (10.00)')
    .requiredOption('--compensation-max <amount>', 'highest compensation per passenger, in major units (500.00)');
}

/** Reads the terms options (`agreementTermsFrom`, as the operator console's forms); the errors go to `errors`. */
function termsFrom(options: TermOptions, errors: FieldError[]): AgreementInput {
  return agreementTermsFrom({ ...options, allowedFormulas: options.formulas.split(',') }, errors);
}

const TERM_FLAGS = {
  '/allowedFormulas': '--formulas',
  '/currency': '--currency',
  '/taxRate': '--tax-rate',
  '/commissionMin': '--commission-min',
  '/commissionMax': '--commission-max',
  '/compensationMin': '--compensation-min',
  '/compensationMax': '--compensation-max',
};

/** A partner's agreement with the insurer: set, sign, show, and its documents. */
export function agreementCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const agreement = group(
    'agreement',
    "Set, sign and show a partner's agreement with the insurer",
    'parasol agreement show acme-air',
  );

  termOptions(
    leaf(
      agreement,
      'set <partner>',
      'Set the terms of the draft agreement (a signed agreement cannot change: amend it)',
      'parasol agreement set acme-air --formulas delay,cancellation,delay_and_cancellation --currency EUR --tax-rate 0.09 --commission-min 0 --commission-max 0.3 --compensation-min 10.00 --compensation-max 500.00',
    ),
  ).action(
    run(async (ref: string, options: TermOptions) => {
      const errors: FieldError[] = [];
      const terms = termsFrom(options, errors);
      if (errors.length) throw new DomainError('validation_failed', 'The agreement is not valid.', { errors });
      const partner = await requirePartner(db, ref);
      const saved = await setAgreement(db, actor, partner.id, terms);
      return {
        data: { partner: partner.slug, agreement: agreementJson(saved) },
        lines: [
          `Agreement of ${partner.slug} saved as a draft; sign it with: parasol agreement sign ${partner.slug}`,
          '',
          ...agreementLines(saved),
        ],
      };
    }, fieldMap(TERM_FLAGS)),
  );

  termOptions(
    leaf(
      agreement,
      'amend <partner>',
      'Sign an amendment of a signed agreement: a new version with its own terms, effective from a date (today or later)',
      'parasol agreement amend acme-air --formulas delay,cancellation --currency EUR --tax-rate 0.09 --commission-min 0 --commission-max 0.25 --compensation-min 10.00 --compensation-max 400.00 --effective 2027-01-01 --reason "2027 renewal"',
    ),
  )
    .requiredOption(
      '--effective <date>',
      'from when the new version applies: a date (YYYY-MM-DD, from 00:00 UTC; today: at once) or an ISO 8601 instant',
    )
    .requiredOption('--reason <text>', 'why the agreement is amended (1-500 characters, kept in the history)')
    .action(
      run(
        async (ref: string, options: TermOptions & { effective: string; reason: string }) => {
          const now = kit.io.now?.() ?? new Date();
          const errors: FieldError[] = [];
          const terms = termsFrom(options, errors);
          const effectiveAt = parseEffective(options.effective, now);
          if (!effectiveAt)
            errors.push({
              field: '/effectiveAt',
              code: 'invalid_format',
              message: 'must be a date (YYYY-MM-DD) or an ISO 8601 instant with its offset',
            });
          if (errors.length || !effectiveAt)
            throw new DomainError('validation_failed', 'The amendment is not valid.', { errors });
          const partner = await requirePartner(db, ref);
          const {
            agreement: signed,
            changes,
            violations,
          } = await amendAgreement(db, actor, partner.id, { ...terms, effectiveAt, reason: options.reason }, now);
          return {
            data: { partner: partner.slug, agreement: agreementJson(signed), changes, violations },
            lines: [
              `Signed version ${signed.version} of the agreement of ${partner.slug}, effective ${when(signed.effectiveAt)}.`,
              `Changes: ${changes.map((c) => changeText(c, signed.currency)).join('; ') || 'none'}`,
              ...(violations.length
                ? [
                    `Warning: the current configuration of ${partner.slug} is outside version ${signed.version}: from ${when(signed.effectiveAt)} its quotes are refused until it is adjusted:`,
                    ...fieldErrorLines(violations),
                  ]
                : []),
            ],
          };
        },
        fieldMap({ ...TERM_FLAGS, '/effectiveAt': '--effective', '/reason': '--reason' }),
      ),
    );

  leaf(
    agreement,
    'history <partner>',
    "Show every version of a partner's agreement: effective dates, signatures, reasons and what changed",
    'parasol agreement history acme-air',
  ).action(
    run(async (ref: string) => {
      const now = kit.io.now?.() ?? new Date();
      const partner = await requirePartner(db, ref);
      const versions = await repo.listAgreementVersions(db, partner.id);
      return {
        data: { partner: partner.slug, versions: agreementHistoryJson(versions, now) },
        lines: agreementHistoryLines(versions, now),
      };
    }),
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
    .option('--insurer-name <name>', "the insurer's legal name (default: PARASOL_INSURER_NAME)")
    .option(
      '--insurer-registration <text>',
      'legal form and registration number (default: PARASOL_INSURER_REGISTRATION)',
    )
    .option('--insurer-address <text>', 'registered office (default: PARASOL_INSURER_ADDRESS)')
    .option('--insurer-regulator <text>', 'supervisory authority (default: PARASOL_INSURER_REGULATOR)')
    .option('--complaints-email <email>', 'where customers send complaints (default: PARASOL_INSURER_EMAIL)')
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
            insurerName?: string;
            insurerRegistration?: string;
            insurerAddress?: string;
            insurerRegulator?: string;
            complaintsEmail?: string;
            complaintsUrl?: string;
          },
        ) => {
          const partner = await requirePartner(db, ref);
          // what the operator leaves out is the platform's insurer, the one customers' messages name
          const platform = kit.io.config ? insurerOfPlatform(kit.io.config.insurer) : undefined;
          const saved = await setDocuments(db, actor, partner.id, {
            ipid: { url: o.ipidUrl, version: o.ipidVersion, sha256: o.ipidSha256 },
            terms: { url: o.termsUrl, version: o.termsVersion, sha256: o.termsSha256 },
            insurer: {
              name: o.insurerName ?? platform?.name ?? '',
              registration: o.insurerRegistration ?? platform?.registration ?? '',
              address: o.insurerAddress ?? platform?.address ?? '',
              regulator: o.insurerRegulator ?? platform?.regulator ?? '',
              complaints: {
                email: o.complaintsEmail ?? platform?.complaints.email ?? '',
                url: o.complaintsUrl ?? null,
              },
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
}
