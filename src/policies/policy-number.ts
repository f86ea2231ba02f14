import { newReferenceNumber, referenceNumberPattern } from '../platform/reference-number.ts';

/** Policy numbers: `PA-7K3M-9QXT` (see platform/reference-number.ts). */
export const newPolicyNumber = (): string => newReferenceNumber('PA');
export const POLICY_NUMBER_PATTERN = referenceNumberPattern('PA');
/** A policy number as the API reads it from a path: without surrounding spaces, in capitals. */
export const canonicalPolicyNumber = (text: string): string => text.trim().toUpperCase();
