import type { SepaCreditTransferInput, SepaPayout } from '../../src/payouts/sepa-file.ts';

/** The insurer's account and a small batch; tests override what they exercise. */
export const DEBTOR = {
  name: 'Parasol Assurances SA',
  iban: 'FR7630006000011234567890189',
  bic: 'AGRIFRPPXXX',
  address: { country: 'FR', lines: ['1 place de la Bourse', '75002 Paris'] },
};

export function payout(overrides: Partial<SepaPayout> = {}): SepaPayout {
  return {
    endToEndId: 'PSL5TCW6YBLAJWJL44L7NTNFMIZGB',
    amount: 5000,
    currency: 'EUR',
    creditorName: 'Camille Martin',
    creditorIban: 'DE89370400440532013000',
    remittanceInformation: 'Parasol claim CLM-00000001 flight AF1234 12/03/2025',
    ...overrides,
  };
}

export function batch(overrides: Partial<SepaCreditTransferInput> = {}): SepaCreditTransferInput {
  return {
    messageId: 'PSL-20250312-0001',
    paymentInfoId: 'PSL-20250312-0001-1',
    createdAt: new Date('2025-03-12T10:15:30.123Z'),
    requestedExecutionDate: '2025-03-13',
    debtor: DEBTOR,
    payouts: [
      payout({ endToEndId: 'PSL-E2E-1', amount: 29, creditorName: 'Hélène Müller-Łukasz & fils' }),
      payout({ endToEndId: 'PSL-E2E-2', amount: 115, creditorIban: 'NL91 ABNA 0417 1643 00' }),
      payout({ endToEndId: 'PSL-E2E-3', amount: 100000001, creditorIban: 'it60x0542811101000000123456' }),
    ],
    ...overrides,
  };
}
