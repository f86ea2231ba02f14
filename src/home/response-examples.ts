/**
 * The example answers of the Demo API's OpenAPI document (routes.ts): what it answers to the
 * documented requests — the worked example of docs/home-pricing.md, quoted on 2026-11-24 at 09:20 UTC,
 * the day of the story test/http/openapi-examples.http.test.ts runs. The quote reference is the one
 * the API to manage policies documents with its home policy (an example id and tag, not a real run's);
 * openapi-contract.http.test.ts checks that every success answer has an example valid against its schema.
 */
import { exampleHome } from './schemas.ts';

export const EXAMPLE_HOME_QUOTE_REFERENCE =
  'h1.WyJONk9LaDJzbVJvUnpHVVdxIiwxNzk1NTEyMDAwLDE3OTgxMDQwMDAsImIzMTUwMDhjLTNkYTgtNGE4OC1iMjI3LTllMTExNGQ3Y2VkMiIsInNhbmRib3giLCJob21lLTEiLCJFVVIiLDMxMjAxLDI2MDAseyJ6aXBDb2RlIjoiNzUwMDciLCJjaXR5IjoiUEFSSVMiLCJob3VzaW5nVHlwZSI6ImFwYXJ0bWVudCIsIm9jY3VwYW5jeSI6InRlbmFudCIsInJvb21zIjozLCJsaXZpbmdBcmVhIjo2MiwiZmxvb3IiOjIsImNvbnN0cnVjdGlvblllYXIiOjE5MzAsImNvbnRlbnRzVmFsdWUiOnsiYW1vdW50IjoyMDAwMDAwLCJjdXJyZW5jeSI6IkVVUiJ9LCJjb3ZlcmFnZUxldmVsIjoiY29tZm9ydCIsIm9wdGlvbnMiOlsiZ2xhc3NfYnJlYWthZ2UiLCJ0aGVmdCJdfV0.kxyhSrioRsYc3QPHrAZOGQ';

export const CITY_RESPONSE_EXAMPLE = { postalCode: '75007', zipCode: '75007', cities: ['PARIS'] };

export const HOME_QUOTE_RESPONSE_EXAMPLE = {
  quoteReference: EXAMPLE_HOME_QUOTE_REFERENCE,
  expiresAt: '2026-12-24T09:20:00.000Z',
  tariffVersion: 'home-1',
  annualPremium: {
    amount: 31201,
    currency: 'EUR',
  },
  monthlyPremium: {
    amount: 2600,
    currency: 'EUR',
  },
  annualTax: {
    amount: 2576,
    currency: 'EUR',
  },
  taxRate: 0.09,
  zone: 'D',
  department: '75',
  coverages: [
    {
      code: 'tenant_liability',
      label: 'Your liability to the landlord for fire, explosion and water damage',
      limit: {
        amount: 100000000,
        currency: 'EUR',
      },
      deductible: {
        amount: 15000,
        currency: 'EUR',
      },
      option: false,
    },
    {
      code: 'contents',
      label: 'Your furniture and belongings: fire, explosion, water damage, storm, hail and snow',
      limit: {
        amount: 2000000,
        currency: 'EUR',
      },
      deductible: {
        amount: 15000,
        currency: 'EUR',
      },
      option: false,
    },
    {
      code: 'natural_disasters',
      label: 'Natural disasters declared by the State (statutory deductible)',
      limit: null,
      deductible: {
        amount: 38000,
        currency: 'EUR',
      },
      option: false,
    },
    {
      code: 'civil_liability',
      label: 'Private-life civil liability of the household',
      limit: {
        amount: 500000000,
        currency: 'EUR',
      },
      deductible: {
        amount: 0,
        currency: 'EUR',
      },
      option: false,
    },
    {
      code: 'theft',
      label: 'Theft and vandalism of belongings',
      limit: {
        amount: 1500000,
        currency: 'EUR',
      },
      deductible: {
        amount: 15000,
        currency: 'EUR',
      },
      option: true,
    },
    {
      code: 'glass_breakage',
      label: 'Breakage of windows, glass doors and glass-ceramic hobs',
      limit: {
        amount: 300000,
        currency: 'EUR',
      },
      deductible: {
        amount: 0,
        currency: 'EUR',
      },
      option: true,
    },
  ],
  // the risk as the quote echoes it: the request's fields and the postal code under its new name
  risk: { postalCode: exampleHome.zipCode, ...exampleHome },
};
