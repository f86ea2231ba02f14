import { requirePartner, setAgreement, setDocuments, signAgreement, type Formula } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { amountOrError, fieldMap, when, type CommandKit } from './kit.ts';
import { agreementJson, agreementLines, documentLines } from './partner-output.ts';

/** A partner's agreement with the insurer: set, sign, show, and its documents. */
export function agreementCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

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
}
