import { newReferenceNumber, referenceNumberPattern } from '../platform/reference-number.ts';

/** Contract numbers: `FD-7K3M-9QXT` (see platform/reference-number.ts). */
export const newContractNumber = (): string => newReferenceNumber('FD');
export const CONTRACT_NUMBER_PATTERN = referenceNumberPattern('FD');
