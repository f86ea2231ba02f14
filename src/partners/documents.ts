import { audit } from '../platform/audit.ts';
import type { Insurer as PlatformInsurer } from '../platform/config.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import type { DocumentSet, DocumentSetInput, Insurer } from './model.ts';
import * as repo from './partners-repo.ts';

/**
 * The compliance pack of an agreement (issue 13 §2): the documents a customer must receive before
 * buying — the insurance product information document (IPID, IDD 2016/97 art. 20) and the terms —
 * each by URL, version and SHA-256 of the file, and the insurer's legal identity and complaints
 * contact. Every change is a new immutable version: quotes sign the version they were issued with,
 * so a new version applies to new quotes only.
 */

const HTTPS_URL = /^https:\/\/[^\s/$.?#][^\s]*$/i;
const SHA256 = /^[0-9a-f]{64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function text(errors: FieldError[], field: string, value: string, max: number): string {
  const v = value.trim();
  // empty: `required`; too long: `too_long` — as every required text of the platform is refused
  if (v.length === 0) errors.push({ field, code: 'required', message: 'is required' });
  else if (v.length > max) errors.push({ field, code: 'too_long', message: `must be at most ${max} characters` });
  return v;
}

function url(errors: FieldError[], field: string, value: string): string {
  const v = value.trim();
  let ok = HTTPS_URL.test(v) && v.length <= 2000;
  if (ok) {
    try {
      new URL(v);
    } catch {
      ok = false;
    }
  }
  if (!ok)
    errors.push({ field, code: 'invalid_format', message: 'must be an https:// URL of at most 2000 characters' });
  return v;
}

function sha256(errors: FieldError[], field: string, value: string): string {
  const v = value.trim().toLowerCase();
  if (!SHA256.test(v))
    errors.push({ field, code: 'invalid_format', message: 'must be the SHA-256 of the file: 64 hexadecimal digits' });
  return v;
}

/**
 * The insurer's identity a new documents set starts from when the operator gives none: the platform's
 * (PARASOL_INSURER_*), the identity every customer SMS, email and page already names — so the
 * pre-contract documents and the messages name the same insurer unless the operator means otherwise.
 * Complaints go to the insurer's customer contact.
 */
export function insurerOfPlatform(insurer: PlatformInsurer): Insurer {
  return {
    name: insurer.legalName,
    registration: insurer.registration,
    address: insurer.address,
    regulator: insurer.regulator,
    complaints: { email: insurer.email, url: null },
  };
}

/** Checks and normalises a pack (pure): throws validation_failed with every field error. */
export function checkDocuments(input: DocumentSetInput): DocumentSetInput {
  const errors: FieldError[] = [];
  const out: DocumentSetInput = {
    ipid: {
      url: url(errors, '/ipid/url', input.ipid.url),
      version: text(errors, '/ipid/version', input.ipid.version, 40),
      sha256: sha256(errors, '/ipid/sha256', input.ipid.sha256),
    },
    terms: {
      url: url(errors, '/terms/url', input.terms.url),
      version: text(errors, '/terms/version', input.terms.version, 40),
      sha256: sha256(errors, '/terms/sha256', input.terms.sha256),
    },
    insurer: {
      name: text(errors, '/insurer/name', input.insurer.name, 200),
      registration: text(errors, '/insurer/registration', input.insurer.registration, 200),
      address: text(errors, '/insurer/address', input.insurer.address, 500),
      regulator: text(errors, '/insurer/regulator', input.insurer.regulator, 200),
      complaints: {
        email: input.insurer.complaints.email.trim().toLowerCase(),
        url: input.insurer.complaints.url?.trim() ? input.insurer.complaints.url.trim() : null,
      },
    },
  };
  const email = out.insurer.complaints.email;
  if (!EMAIL.test(email) || email.length > 254)
    errors.push({ field: '/insurer/complaints/email', code: 'invalid_format', message: 'must be an e-mail address' });
  if (out.insurer.complaints.url !== null) url(errors, '/insurer/complaints/url', out.insurer.complaints.url);
  if (errors.length) throw new DomainError('validation_failed', 'The documents are not valid.', { errors });
  return out;
}

/**
 * Attaches a new version of the compliance pack to the partner's agreement. It takes its turn with
 * the partner's other terms changes (`lockPartnerTerms`): the next version is numbered after the last
 * one, so two attachments at once (two operators, the console and the CLI) each get a version of their
 * own instead of the second breaking the (partner, version) key — a 500.
 */
export async function setDocuments(
  db: Db,
  actor: string,
  partnerId: string,
  input: DocumentSetInput,
): Promise<DocumentSet> {
  const checked = checkDocuments(input);
  return db.transaction().execute(async (trx) => {
    await repo.lockPartnerTerms(trx, partnerId);
    if (!(await repo.findAgreement(trx, partnerId)))
      throw new DomainError('agreement_missing', 'Set the agreement terms before attaching its documents.');
    const documents = await repo.insertDocuments(trx, partnerId, actor, checked);
    await audit(trx, {
      actor,
      partnerId,
      entity: 'agreement_documents',
      entityId: `${partnerId}/${documents.version}`,
      action: 'set',
      data: checked,
    });
    return documents;
  });
}
