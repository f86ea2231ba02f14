/**
 * The example answer of each contract and claim operation of the Flight Delay API's OpenAPI document (its 2xx), by
 * operationId: what the API answered to the documented requests (the story of
 * test/http/openapi-examples.http.test.ts, on 2026-11-24), with the identifiers of the documented
 * requests; the claims are another contract's (FD-4H8N-2WRP, on AF006), as the contract shown has none.
 * Nothing is a real run's: the signed references carry placeholder ids (11111111-…, 22222222-…) and
 * an example tag, the SMS link an example token. openapi-contract.http.test.ts checks that every
 * operation's success has an example valid against its schema.
 */
export const RESPONSE_EXAMPLES = {
  getPrice: {
    quoteReference:
      'q3.WyIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzYW5kYm94IiwiMjIyMjIyMjItMjIyMi00MjIyLTgyMjItMjIyMjIyMjIyMjIyIiwiZGVsYXlfYW5kX2NhbmNlbGxhdGlvbiIsMiwiRVVSIixbNDE1NCwzNzQsODMwLDQ1MjhdLFtbIkNERyIsIkpGSyIsIkFGIiwiMjAyNi0xMi0yNFQxMDozMCJdLFsiSkZLIiwiQ0RHIiwiQUYiLCIyMDI3LTAxLTAzVDE4OjAwIl1dLCJ2Mi0yMDA4cTEiLDEsMSxbMTAyMSwxMDU2XSwxNzk1NTEyMDAwLDE3OTU1OTg0MDBd.example-tag-not-signed.example-quote-id',
    expiresAt: '2026-11-25T09:20:00.000Z',
    formula: 'delay_and_cancellation',
    passengers: 2,
    premium: {
      total: {
        amount: 4528,
        currency: 'EUR',
      },
      net: {
        amount: 4154,
        currency: 'EUR',
      },
      tax: {
        amount: 374,
        currency: 'EUR',
      },
      commission: {
        amount: 830,
        currency: 'EUR',
      },
    },
    compensation: {
      delay: [
        {
          minDelayMinutes: 120,
          amount: {
            amount: 5000,
            currency: 'EUR',
          },
        },
        {
          minDelayMinutes: 180,
          amount: {
            amount: 10000,
            currency: 'EUR',
          },
        },
      ],
      cancellation: {
        amount: 15000,
        currency: 'EUR',
      },
    },
    legs: [
      {
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T10:30',
        departureAt: '2026-12-24T09:30:00.000Z',
      },
      {
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    configurationVersion: 1,
    modelVersion: 'v2-2008q1',
    breakdown: [
      {
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        flightNumber: null,
        credibility: 0.09027051833561646,
        expectedLoss: {
          amount: 609,
          currency: 'EUR',
        },
        premium: {
          amount: 1021,
          currency: 'EUR',
        },
        events: [
          {
            event: 'cancellation',
            minDelayMinutes: null,
            maxDelayMinutes: null,
            probability: 0.02518044,
            payout: {
              amount: 15000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.03019779,
              factors: [
                {
                  label: 'month 12 (prior)',
                  factor: 1.0740465614322807,
                  credibility: 0,
                },
                {
                  label: 'Thursday',
                  factor: 1,
                  credibility: 0,
                },
                {
                  label: 'hour 10',
                  factor: 1,
                  credibility: 0,
                },
                {
                  label: 'to JFK',
                  factor: 1.0824258517081948,
                  credibility: 0.8310393278392242,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 0.7172441151940072,
                  credibility: 0,
                },
              ],
              probability: 0.02518044,
              text: '3.02 % × 1.07 (month 12 (prior)) × 1.00 (Thursday) × 1.00 (hour 10) × 1.08 (to JFK) × 0.72 (long-haul (prior)) = 2.52 %',
            },
          },
          {
            event: 'diversion',
            minDelayMinutes: null,
            maxDelayMinutes: null,
            probability: 0.00534233,
            payout: {
              amount: 15000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.00257162,
              factors: [
                {
                  label: 'month 12 (prior)',
                  factor: 1.030407811849733,
                  credibility: 0,
                },
                {
                  label: 'Thursday',
                  factor: 0.9759956678635481,
                  credibility: 0.0833765361232338,
                },
                {
                  label: 'hour 10',
                  factor: 1.0768617961872877,
                  credibility: 0.5564664819754195,
                },
                {
                  label: 'to JFK',
                  factor: 1.1602750032421518,
                  credibility: 0.940312975244718,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.653281183097068,
                  credibility: 0,
                },
              ],
              probability: 0.00534233,
              text: '0.26 % × 1.03 (month 12 (prior)) × 0.98 (Thursday) × 1.08 (hour 10) × 1.16 (to JFK) × 1.65 (long-haul (prior)) = 0.53 %',
            },
          },
          {
            event: 'delay',
            minDelayMinutes: 120,
            maxDelayMinutes: 180,
            probability: 0.01454218,
            payout: {
              amount: 5000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.02629905,
              factors: [
                {
                  label: 'month 12 (prior)',
                  factor: 1.0137086538020368,
                  credibility: 0,
                },
                {
                  label: 'Thursday',
                  factor: 1.0000659197162942,
                  credibility: 0,
                },
                {
                  label: 'hour 10',
                  factor: 0.7278176773611121,
                  credibility: 0.9771222284059818,
                },
                {
                  label: 'to JFK',
                  factor: 1.1187913261331006,
                  credibility: 0.9792261228468591,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.0329742618878548,
                  credibility: 0,
                },
              ],
              probability: 0.02242555,
              text: '2.63 % × 1.01 (month 12 (prior)) × 1.00 (Thursday) × 0.73 (hour 10) × 1.12 (to JFK) × 1.03 (long-haul (prior)) = 2.24 %',
            },
          },
          {
            event: 'delay',
            minDelayMinutes: 180,
            maxDelayMinutes: null,
            probability: 0.00788337,
            payout: {
              amount: 10000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.00961704,
              factors: [
                {
                  label: 'month 12 (prior)',
                  factor: 1.0137086538020368,
                  credibility: 0,
                },
                {
                  label: 'Thursday',
                  factor: 1.000065919716294,
                  credibility: 0,
                },
                {
                  label: 'hour 10',
                  factor: 0.6897523363754964,
                  credibility: 0.9597978712889672,
                },
                {
                  label: 'to JFK',
                  factor: 1.1348694053879549,
                  credibility: 0.9659214399931797,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.032974261887855,
                  credibility: 0,
                },
              ],
              probability: 0.00788337,
              text: '0.96 % × 1.01 (month 12 (prior)) × 1.00 (Thursday) × 0.69 (hour 10) × 1.13 (to JFK) × 1.03 (long-haul (prior)) = 0.79 %',
            },
          },
        ],
      },
      {
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        flightNumber: null,
        credibility: 0.09145302603990604,
        expectedLoss: {
          amount: 630,
          currency: 'EUR',
        },
        premium: {
          amount: 1056,
          currency: 'EUR',
        },
        events: [
          {
            event: 'cancellation',
            minDelayMinutes: null,
            maxDelayMinutes: null,
            probability: 0.02055149,
            payout: {
              amount: 15000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.03019779,
              factors: [
                {
                  label: 'month 1',
                  factor: 0.9462651435632181,
                  credibility: 0.9981685228177163,
                },
                {
                  label: 'Sunday',
                  factor: 1,
                  credibility: 0,
                },
                {
                  label: 'hour 18',
                  factor: 1,
                  credibility: 0,
                },
                {
                  label: 'from JFK',
                  factor: 1.0027398957220095,
                  credibility: 0.869344712151695,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 0.7172441151940072,
                  credibility: 0,
                },
              ],
              probability: 0.02055149,
              text: '3.02 % × 0.95 (month 1) × 1.00 (Sunday) × 1.00 (hour 18) × 1.00 (from JFK) × 0.72 (long-haul (prior)) = 2.06 %',
            },
          },
          {
            event: 'diversion',
            minDelayMinutes: null,
            maxDelayMinutes: null,
            probability: 0.00374271,
            payout: {
              amount: 15000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.00257162,
              factors: [
                {
                  label: 'month 1',
                  factor: 0.8556007181728505,
                  credibility: 0.9746492898394904,
                },
                {
                  label: 'Sunday',
                  factor: 0.9959798121593496,
                  credibility: 0.07847936635798589,
                },
                {
                  label: 'hour 18',
                  factor: 0.9140083344170152,
                  credibility: 0.5452669609330206,
                },
                {
                  label: 'from JFK',
                  factor: 1.1302159986893847,
                  credibility: 0.8858624048726055,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.6532811830970677,
                  credibility: 0,
                },
              ],
              probability: 0.00374271,
              text: '0.26 % × 0.86 (month 1) × 1.00 (Sunday) × 0.91 (hour 18) × 1.13 (from JFK) × 1.65 (long-haul (prior)) = 0.37 %',
            },
          },
          {
            event: 'delay',
            minDelayMinutes: 120,
            maxDelayMinutes: 180,
            probability: 0.0246703,
            payout: {
              amount: 5000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.02629905,
              factors: [
                {
                  label: 'month 1',
                  factor: 0.9594392817336628,
                  credibility: 0.9882554604304509,
                },
                {
                  label: 'Sunday',
                  factor: 1.0000091263954185,
                  credibility: 0,
                },
                {
                  label: 'hour 18',
                  factor: 1.5410714749676062,
                  credibility: 0.9759251455331346,
                },
                {
                  label: 'from JFK',
                  factor: 0.9699917452113009,
                  credibility: 0.9655974041602344,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.0316493234374229,
                  credibility: 0,
                },
              ],
              probability: 0.03891208,
              text: '2.63 % × 0.96 (month 1) × 1.00 (Sunday) × 1.54 (hour 18) × 0.97 (from JFK) × 1.03 (long-haul (prior)) = 3.89 %',
            },
          },
          {
            event: 'delay',
            minDelayMinutes: 180,
            maxDelayMinutes: null,
            probability: 0.01424179,
            payout: {
              amount: 10000,
              currency: 'EUR',
            },
            explanation: {
              base: 0.00961704,
              factors: [
                {
                  label: 'month 1',
                  factor: 0.9526197576364019,
                  credibility: 0.9673561136100272,
                },
                {
                  label: 'Sunday',
                  factor: 1.0000091263954185,
                  credibility: 0,
                },
                {
                  label: 'hour 18',
                  factor: 1.4422934062517303,
                  credibility: 0.9577335004397378,
                },
                {
                  label: 'from JFK',
                  factor: 1.0447528206565317,
                  credibility: 0.9431319793398256,
                },
                {
                  label: 'long-haul (prior)',
                  factor: 1.0316493234374229,
                  credibility: 0,
                },
              ],
              probability: 0.01424179,
              text: '0.96 % × 0.95 (month 1) × 1.00 (Sunday) × 1.44 (hour 18) × 1.04 (from JFK) × 1.03 (long-haul (prior)) = 1.42 %',
            },
          },
        ],
      },
    ],
    documents: {
      version: 1,
      ipid: {
        url: 'https://example.org/parasol/demo-air/ipid-v1.pdf',
        version: 'IPID-2026-1',
        sha256: '1b144a30a889a883da7755662c4520be83f334558f842449a0399af83967951a',
      },
      terms: {
        url: 'https://example.org/parasol/demo-air/terms-v1.pdf',
        version: 'CG-2026-1',
        sha256: 'bde40c25112dc0a0f448bae719f0d9870a41b63e6ed425528dbc485887da7fce',
      },
    },
    insurer: {
      name: 'Parasol Assurances SA (demo)',
      registration: 'RCS Paris 000 000 000 (demo)',
      address: '1 rue de la Démonstration, 75001 Paris, France',
      regulator: 'ACPR, 4 place de Budapest, 75009 Paris, France',
      complaints: {
        email: 'contact@parasol.example',
        url: null,
      },
    },
  },
  /** What `/getPrice` answers, less what only a quote carries (its reference, expiry, documents…). */
  get simulatePrice() {
    const { formula, passengers, premium, compensation, legs, modelVersion, breakdown } = this.getPrice;
    return { formula, passengers, premium, compensation, legs, modelVersion, breakdown };
  },
  subscribe: {
    contractNumber: 'FD-7K3M-9QXT',
    status: 'active',
    formula: 'delay_and_cancellation',
    passengers: 2,
    premium: {
      total: {
        amount: 4528,
        currency: 'EUR',
      },
      net: {
        amount: 4154,
        currency: 'EUR',
      },
      tax: {
        amount: 374,
        currency: 'EUR',
      },
      commission: {
        amount: 830,
        currency: 'EUR',
      },
    },
    compensation: {
      delay: [
        {
          minDelayMinutes: 120,
          amount: {
            amount: 5000,
            currency: 'EUR',
          },
        },
        {
          minDelayMinutes: 180,
          amount: {
            amount: 10000,
            currency: 'EUR',
          },
        },
      ],
      cancellation: {
        amount: 15000,
        currency: 'EUR',
      },
    },
    configurationVersion: 1,
    agreementVersion: 1,
    modelVersion: 'v2-2008q1',
    booking: {
      reference: 'ABC123',
    },
    flights: [
      {
        leg: 0,
        flightNumber: 'AF006',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T10:30',
        departureAt: '2026-12-24T09:30:00.000Z',
      },
      {
        leg: 1,
        flightNumber: 'AF007',
        operatingFlightNumber: null,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    version: 1,
    consent: {
      acceptedAt: '2026-11-24T09:25:00.000Z',
      documentsVersion: 1,
      channel: 'web',
    },
    createdAt: '2026-11-24T09:30:00.000Z',
  },
  cancel: {
    contractNumber: 'FD-7K3M-9QXT',
    status: 'cancelled',
    reason: 'ticket_cancelled',
    cancelledAt: '2026-11-24T09:55:00.000Z',
    refund: {
      amount: 1296,
      currency: 'EUR',
    },
  },
  previewPartialCancellation: {
    contractNumber: 'FD-7K3M-9QXT',
    change: 'passenger_cancelled',
    reason: 'customer_request',
    version: 3,
    passengers: 1,
    flights: [
      {
        leg: 0,
        flightNumber: 'AF010',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T14:05',
        departureAt: '2026-12-24T13:05:00.000Z',
      },
      {
        leg: 1,
        flightNumber: 'AF007',
        operatingFlightNumber: null,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    premium: {
      total: {
        amount: 2447,
        currency: 'EUR',
      },
      net: {
        amount: 2245,
        currency: 'EUR',
      },
      tax: {
        amount: 202,
        currency: 'EUR',
      },
      commission: {
        amount: 449,
        currency: 'EUR',
      },
    },
    refund: {
      amount: 2447,
      currency: 'EUR',
    },
    commissionReturned: {
      amount: 449,
      currency: 'EUR',
    },
    cancelledAt: '2026-11-24T09:20:00.000Z',
  },
  cancelPartially: {
    contractNumber: 'FD-7K3M-9QXT',
    change: 'passenger_cancelled',
    reason: 'customer_request',
    version: 3,
    passengers: 1,
    flights: [
      {
        leg: 0,
        flightNumber: 'AF010',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T14:05',
        departureAt: '2026-12-24T13:05:00.000Z',
      },
      {
        leg: 1,
        flightNumber: 'AF007',
        operatingFlightNumber: null,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    premium: {
      total: {
        amount: 2447,
        currency: 'EUR',
      },
      net: {
        amount: 2245,
        currency: 'EUR',
      },
      tax: {
        amount: 202,
        currency: 'EUR',
      },
      commission: {
        amount: 449,
        currency: 'EUR',
      },
    },
    refund: {
      amount: 2447,
      currency: 'EUR',
    },
    commissionReturned: {
      amount: 449,
      currency: 'EUR',
    },
    cancelledAt: '2026-11-24T09:20:00.000Z',
  },
  reportFlightEvent: {
    claimsOpened: [
      {
        claimNumber: 'CLM-00000042',
        contractNumber: 'FD-4H8N-2WRP',
        status: 'opened',
        reason: 'delay',
        event: 'delayed',
        flightNumber: 'AF006',
        operatingFlightNumber: null,
        departureDate: '2026-12-24',
        delayMinutes: 195,
        compensation: {
          amount: 10000,
          currency: 'EUR',
        },
        openedAt: '2026-12-24T21:05:00.000Z',
        paidAt: null,
        evidence: {
          source: 'partner_report',
          provider: null,
          providerFlightId: null,
          scheduledDeparture: null,
          actualDeparture: null,
          scheduledArrival: null,
          actualArrival: null,
          divertedTo: null,
          delayMinutes: 195,
          rule: {
            trigger: 'delay_tier',
            minDelayMinutes: 180,
            amountPerPassenger: {
              amount: 10000,
              currency: 'EUR',
            },
            passengers: 1,
            configurationVersion: 1,
          },
          decidedAt: '2026-12-24T21:05:00.000Z',
        },
      },
    ],
  },
  getContract: {
    contractNumber: 'FD-7K3M-9QXT',
    status: 'active',
    formula: 'delay_and_cancellation',
    passengers: 1,
    premium: {
      total: {
        amount: 1296,
        currency: 'EUR',
      },
      net: {
        amount: 1189,
        currency: 'EUR',
      },
      tax: {
        amount: 107,
        currency: 'EUR',
      },
      commission: {
        amount: 238,
        currency: 'EUR',
      },
    },
    compensation: {
      delay: [
        {
          minDelayMinutes: 120,
          amount: {
            amount: 5000,
            currency: 'EUR',
          },
        },
        {
          minDelayMinutes: 180,
          amount: {
            amount: 10000,
            currency: 'EUR',
          },
        },
      ],
      cancellation: {
        amount: 15000,
        currency: 'EUR',
      },
    },
    configurationVersion: 1,
    agreementVersion: 1,
    modelVersion: 'v2-2008q1',
    booking: {
      reference: 'ABC123',
    },
    flights: [
      {
        leg: 0,
        flightNumber: 'AF010',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T14:05',
        departureAt: '2026-12-24T13:05:00.000Z',
        flightStatus: {
          state: 'scheduled',
          lastCheckedAt: null,
          decidedAt: null,
          outcome: null,
        },
      },
    ],
    version: 4,
    consent: {
      acceptedAt: '2026-11-24T09:25:00.000Z',
      documentsVersion: 1,
      channel: 'web',
    },
    createdAt: '2026-11-24T09:30:00.000Z',
    customer: {
      firstName: 'Camille',
      lastName: 'Martin',
      email: 'camille@example.com',
      phone: '+33612345678',
      language: 'fr',
    },
    cancellation: null,
    claims: [],
    versions: [
      {
        version: 1,
        change: 'subscribed',
        at: '2026-11-24T09:30:00.000Z',
        passengers: 2,
        flights: [
          {
            leg: 0,
            flightNumber: 'AF006',
            operatingFlightNumber: null,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T10:30',
          },
          {
            leg: 1,
            flightNumber: 'AF007',
            operatingFlightNumber: null,
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: '2027-01-03T18:00',
          },
        ],
        premium: {
          amount: 4528,
          currency: 'EUR',
        },
        difference: {
          amount: 0,
          currency: 'EUR',
        },
        modelVersion: 'v2-2008q1',
        reason: null,
      },
      {
        version: 2,
        change: 'flight_changed',
        at: '2026-11-24T09:40:00.000Z',
        passengers: 2,
        flights: [
          {
            leg: 0,
            flightNumber: 'AF010',
            operatingFlightNumber: null,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T14:05',
          },
          {
            leg: 1,
            flightNumber: 'AF007',
            operatingFlightNumber: null,
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: '2027-01-03T18:00',
          },
        ],
        premium: {
          amount: 4894,
          currency: 'EUR',
        },
        difference: {
          amount: 366,
          currency: 'EUR',
        },
        modelVersion: 'v2-2008q1',
        reason: null,
      },
      {
        version: 3,
        change: 'passenger_cancelled',
        at: '2026-11-24T09:45:00.000Z',
        passengers: 1,
        flights: [
          {
            leg: 0,
            flightNumber: 'AF010',
            operatingFlightNumber: null,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T14:05',
          },
          {
            leg: 1,
            flightNumber: 'AF007',
            operatingFlightNumber: null,
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: '2027-01-03T18:00',
          },
        ],
        premium: {
          amount: 2447,
          currency: 'EUR',
        },
        difference: {
          amount: -2447,
          currency: 'EUR',
        },
        modelVersion: 'v2-2008q1',
        reason: 'customer_request',
      },
      {
        version: 4,
        change: 'leg_cancelled',
        at: '2026-11-24T09:50:00.000Z',
        passengers: 1,
        flights: [
          {
            leg: 0,
            flightNumber: 'AF010',
            operatingFlightNumber: null,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2026-12-24T14:05',
          },
        ],
        premium: {
          amount: 1296,
          currency: 'EUR',
        },
        difference: {
          amount: -1151,
          currency: 'EUR',
        },
        modelVersion: 'v2-2008q1',
        reason: 'ticket_cancelled',
      },
    ],
  },
  changeContact: {
    contractNumber: 'FD-7K3M-9QXT',
    changed: ['phone'],
  },
  previewFlightChange: {
    contractNumber: 'FD-7K3M-9QXT',
    version: 1,
    changeReference:
      'fc1.WyIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEiLCJzYW5kYm94IiwiRkQtN0szTS05UVhUIiwxLCJ2Mi0yMDA4cTEiLDE3OTU1MTM4MDAsW1swLCJBRjAxMCIsIjIwMjYtMTItMjRUMTQ6MDUiLDExODksMTA3LDIzOF1dXQ.example-tag-not-signed',
    expiresAt: '2026-11-24T09:50:00.000Z',
    flights: [
      {
        leg: 0,
        flightNumber: 'AF010',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T14:05',
        departureAt: '2026-12-24T13:05:00.000Z',
      },
      {
        leg: 1,
        flightNumber: 'AF007',
        operatingFlightNumber: null,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    premium: {
      before: {
        total: {
          amount: 4528,
          currency: 'EUR',
        },
        net: {
          amount: 4154,
          currency: 'EUR',
        },
        tax: {
          amount: 374,
          currency: 'EUR',
        },
        commission: {
          amount: 830,
          currency: 'EUR',
        },
      },
      after: {
        total: {
          amount: 4894,
          currency: 'EUR',
        },
        net: {
          amount: 4490,
          currency: 'EUR',
        },
        tax: {
          amount: 404,
          currency: 'EUR',
        },
        commission: {
          amount: 898,
          currency: 'EUR',
        },
      },
    },
    difference: {
      amount: 366,
      currency: 'EUR',
    },
    outcome: 'charge',
    modelVersion: 'v2-2008q1',
  },
  changeFlights: {
    contractNumber: 'FD-7K3M-9QXT',
    status: 'active',
    formula: 'delay_and_cancellation',
    passengers: 2,
    premium: {
      total: {
        amount: 4894,
        currency: 'EUR',
      },
      net: {
        amount: 4490,
        currency: 'EUR',
      },
      tax: {
        amount: 404,
        currency: 'EUR',
      },
      commission: {
        amount: 898,
        currency: 'EUR',
      },
    },
    compensation: {
      delay: [
        {
          minDelayMinutes: 120,
          amount: {
            amount: 5000,
            currency: 'EUR',
          },
        },
        {
          minDelayMinutes: 180,
          amount: {
            amount: 10000,
            currency: 'EUR',
          },
        },
      ],
      cancellation: {
        amount: 15000,
        currency: 'EUR',
      },
    },
    configurationVersion: 1,
    agreementVersion: 1,
    modelVersion: 'v2-2008q1',
    booking: {
      reference: 'ABC123',
    },
    flights: [
      {
        leg: 0,
        flightNumber: 'AF010',
        operatingFlightNumber: null,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        airline: 'AF',
        departureDateTime: '2026-12-24T14:05',
        departureAt: '2026-12-24T13:05:00.000Z',
      },
      {
        leg: 1,
        flightNumber: 'AF007',
        operatingFlightNumber: null,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        airline: 'AF',
        departureDateTime: '2027-01-03T18:00',
        departureAt: '2027-01-03T23:00:00.000Z',
      },
    ],
    version: 2,
    consent: {
      acceptedAt: '2026-11-24T09:25:00.000Z',
      documentsVersion: 1,
      channel: 'web',
    },
    createdAt: '2026-11-24T09:30:00.000Z',
    difference: {
      amount: 366,
      currency: 'EUR',
    },
    outcome: 'charge',
  },
  searchContracts: {
    contracts: [
      {
        contractNumber: 'FD-7K3M-9QXT',
        status: 'active',
        formula: 'delay_and_cancellation',
        passengers: 1,
        premium: {
          total: {
            amount: 1296,
            currency: 'EUR',
          },
          net: {
            amount: 1189,
            currency: 'EUR',
          },
          tax: {
            amount: 107,
            currency: 'EUR',
          },
          commission: {
            amount: 238,
            currency: 'EUR',
          },
        },
        compensation: {
          delay: [
            {
              minDelayMinutes: 120,
              amount: {
                amount: 5000,
                currency: 'EUR',
              },
            },
            {
              minDelayMinutes: 180,
              amount: {
                amount: 10000,
                currency: 'EUR',
              },
            },
          ],
          cancellation: {
            amount: 15000,
            currency: 'EUR',
          },
        },
        configurationVersion: 1,
        agreementVersion: 1,
        modelVersion: 'v2-2008q1',
        booking: {
          reference: 'ABC123',
        },
        flights: [
          {
            leg: 0,
            flightNumber: 'AF010',
            operatingFlightNumber: null,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            airline: 'AF',
            departureDateTime: '2026-12-24T14:05',
            departureAt: '2026-12-24T13:05:00.000Z',
          },
        ],
        version: 4,
        consent: {
          acceptedAt: '2026-11-24T09:25:00.000Z',
          documentsVersion: 1,
          channel: 'web',
        },
        createdAt: '2026-11-24T09:30:00.000Z',
      },
    ],
    nextCursor: null,
  },
  listSandboxMessages: {
    messages: [
      {
        to: '+33612345678',
        body: 'Test Partner (insured by Parasol): your flight AF006 of 24 Dec 2026 arrived 3 h 15 min late. You are paid €100.00. Enter your bank details: https://parasol.example/c/EXAMPLE-link-token-not-a-real-one-EXAMPLE00',
        link: 'https://parasol.example/c/EXAMPLE-link-token-not-a-real-one-EXAMPLE00',
        sentAt: '2026-12-24T21:05:01.000Z',
      },
    ],
  },
  getClaim: {
    claimNumber: 'CLM-00000042',
    contractNumber: 'FD-4H8N-2WRP',
    status: 'awaiting_bank_details',
    reason: 'delay',
    event: 'delayed',
    flightNumber: 'AF006',
    operatingFlightNumber: null,
    departureDate: '2026-12-24',
    delayMinutes: 195,
    compensation: {
      amount: 10000,
      currency: 'EUR',
    },
    openedAt: '2026-12-24T21:05:00.000Z',
    paidAt: null,
    evidence: {
      source: 'partner_report',
      provider: null,
      providerFlightId: null,
      scheduledDeparture: null,
      actualDeparture: null,
      scheduledArrival: null,
      actualArrival: null,
      divertedTo: null,
      delayMinutes: 195,
      rule: {
        trigger: 'delay_tier',
        minDelayMinutes: 180,
        amountPerPassenger: {
          amount: 10000,
          currency: 'EUR',
        },
        passengers: 1,
        configurationVersion: 1,
      },
      decidedAt: '2026-12-24T21:05:00.000Z',
    },
  },
  getClaims: {
    claims: [
      {
        claimNumber: 'CLM-00000042',
        contractNumber: 'FD-4H8N-2WRP',
        status: 'awaiting_bank_details',
        reason: 'delay',
        event: 'delayed',
        flightNumber: 'AF006',
        operatingFlightNumber: null,
        departureDate: '2026-12-24',
        delayMinutes: 195,
        compensation: {
          amount: 10000,
          currency: 'EUR',
        },
        openedAt: '2026-12-24T21:05:00.000Z',
        paidAt: null,
        evidence: {
          source: 'partner_report',
          provider: null,
          providerFlightId: null,
          scheduledDeparture: null,
          actualDeparture: null,
          scheduledArrival: null,
          actualArrival: null,
          divertedTo: null,
          delayMinutes: 195,
          rule: {
            trigger: 'delay_tier',
            minDelayMinutes: 180,
            amountPerPassenger: {
              amount: 10000,
              currency: 'EUR',
            },
            passengers: 1,
            configurationVersion: 1,
          },
          decidedAt: '2026-12-24T21:05:00.000Z',
        },
      },
    ],
    nextCursor: null,
  },
} as const;
