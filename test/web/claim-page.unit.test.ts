import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimEvidence } from '../../src/claims/evidence.ts';
import type { ClaimForCustomer } from '../../src/payouts/index.ts';
import { claimPage, closedPage } from '../../src/web/claim-page.ts';

/** The customer's page behind the SMS link says why they are paid, and where the claim stands once used. */

function claim(overrides: Partial<ClaimForCustomer> = {}): ClaimForCustomer {
  const evidence = claimEvidence({
    reason: 'delay',
    event: 'delayed',
    delay_minutes: 200,
    compensation_amount: 20_000,
    currency: 'EUR',
    opened_at: new Date('2026-12-24T18:00:00Z'),
    evidence: {
      source: 'monitoring:flightaware',
      provider: 'flightaware',
      scheduledArrival: '2026-12-24T13:30:00.000Z',
      actualArrival: '2026-12-24T16:50:00.000Z',
    },
    coverage: {
      delayTiers: [
        { minDelayMinutes: 120, amount: 5_000 },
        { minDelayMinutes: 180, amount: 10_000 },
      ],
      cancellationAmount: 0,
    },
    passengers: 2,
    configuration_version: 3,
  });
  return {
    claimId: '00000000-0000-0000-0000-000000000001',
    claimNumber: 'CLM-00000001',
    environment: 'sandbox',
    status: 'awaiting_bank_details',
    event: 'delayed',
    delayMinutes: 200,
    amount: 20_000,
    currency: 'EUR',
    flightNumber: 'AF006',
    departureDate: '2026-12-24',
    language: 'en',
    open: true,
    ibanLast4: null,
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    paidAt: null,
    evidence,
    ...overrides,
  };
}

describe('the customer claim page', () => {
  it('says why: gate times in the arrival airport’s time, the delay, the tier, the provider', () => {
    const page = claimPage(claim());
    assert.match(page, /AF006 CDG → JFK/);
    assert.match(page, /id="scheduled-arrival">24\/12\/2026, 08:30 \(JFK\)/);
    assert.match(page, /id="actual-arrival">24\/12\/2026, 11:50 \(JFK\)/);
    assert.match(page, /id="delay">3 h 20 min/);
    assert.match(page, /pays from a delay of 3 h at arrival/);
    assert.match(page, /Flight data from flightaware\./);
    assert.match(page, /<form method="post"/);
  });

  it('in French', () => {
    const page = claimPage(claim({ language: 'fr' }));
    assert.match(page, /Pourquoi vous êtes indemnisé/);
    assert.match(page, /à partir d’un retard de 3 h à l’arrivée/);
  });

  it('after the link: the status instead of a dead end', () => {
    const pending = closedPage(claim({ status: 'payment_pending', open: false, ibanLast4: '3000' }));
    assert.match(pending, /data-status="payment_pending"/);
    assert.match(pending, /account ending 3000\): the payment is on its way/);
    assert.match(pending, /Why you are compensated/);
    assert.doesNotMatch(pending, /<form/);
    const paid = closedPage(claim({ status: 'paid', open: false, paidAt: new Date('2026-12-27T10:00:00Z') }));
    assert.match(paid, /has been paid \(27 Dec 2026\)/);
    const expired = closedPage(claim({ status: 'expired', open: false }));
    assert.match(expired, /has run out/);
  });
});
