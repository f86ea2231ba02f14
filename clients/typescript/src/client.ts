import createClient, { type Client } from 'openapi-fetch';
import type { paths as DemoPaths } from './demo.ts';
import type { paths as FlightDelayPaths } from './flight-delay.ts';
import type { paths as PolicyAdminPaths } from './policy-admin.ts';

/**
 * Typed clients of the three partner APIs (openapi-fetch over the types openapi-typescript
 * generated from the OpenAPI documents): `origin` is the platform's, e.g. `https://api.parasol.example`.
 */
export interface ClientOptions {
  origin: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

const options = (o: ClientOptions, prefix: string) => ({
  baseUrl: `${o.origin.replace(/\/$/, '')}${prefix}`,
  headers: { Authorization: `Bearer ${o.apiKey}` },
  ...(o.fetch ? { fetch: o.fetch } : {}),
});

export const flightDelayClient = (o: ClientOptions): Client<FlightDelayPaths> =>
  createClient<FlightDelayPaths>(options(o, '/flight-delay/v1'));
export const demoClient = (o: ClientOptions): Client<DemoPaths> => createClient<DemoPaths>(options(o, '/demo/v1'));
export const policyAdminClient = (o: ClientOptions): Client<PolicyAdminPaths> =>
  createClient<PolicyAdminPaths>(options(o, '/policy-admin/v1'));

export type { components as FlightDelay } from './flight-delay.ts';
