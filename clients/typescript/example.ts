/**
 * The whole partner lifecycle with the generated client, against a running server:
 * quote → subscribe → a flight event reported in the sandbox → getclaims → cancel another contract.
 *
 *   PARASOL_ORIGIN=http://127.0.0.1:3000 PARASOL_API_KEY=psl_sbx_… node --import tsx clients/typescript/example.ts
 *
 * Each call is typed from the OpenAPI document: bodies, answers and problems (`error`).
 */
import { flightDelayClient, type ClientOptions } from './src/client.ts';

const day = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);

function must<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

type Api = ReturnType<typeof flightDelayClient>;

/**
 * Every claim a /getclaims query selects: following nextCursor until it is null. A page may be short,
 * or empty with a nextCursor, while claims are still being written: then ask again a moment later.
 */
async function allClaims(api: Api, query: { fromDate?: string; toDate?: string; contractNumber?: string }) {
  const claims = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = must(await api.POST('/getclaims', { body: { ...query, ...(cursor ? { cursor } : {}) } }), 'getclaims');
    claims.push(...page.claims);
    if (page.nextCursor === null) return claims;
    if (pages === 1_000) throw new Error('getclaims: still a nextCursor after 1000 pages');
    if (page.claims.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    cursor = page.nextCursor;
  }
}

export async function runLifecycle(options: ClientOptions) {
  const api = flightDelayClient(options);
  const insure = async (daysAhead: number, flightNumber: string) => {
    const departureDateTime = `${day(daysAhead)}T10:30`;
    const trip = { departureAirport: 'CDG', arrivalAirport: 'JFK', airline: 'AF', departureDateTime };
    const quote = must(await api.POST('/getPrice', { body: trip }), 'getPrice');
    const contract = must(
      await api.POST('/subscribe', {
        params: { header: { 'idempotency-key': crypto.randomUUID() } },
        body: {
          quoteReference: quote.quoteReference,
          customer: {
            firstName: 'Ada',
            lastName: 'Byron',
            email: 'ada@example.com',
            phone: '+33612345678',
            language: 'en',
          },
          booking: { reference: 'ABC123' },
          flights: [{ flightNumber, departureAirport: 'CDG', arrivalAirport: 'JFK', departureDateTime }],
          // the customer accepted the documents the quote lists (IPID and terms) before buying
          consent: {
            acceptedAt: new Date().toISOString(),
            documentsVersion: quote.documents.version,
            channel: 'web',
          },
        },
      }),
      'subscribe',
    );
    return { quote, contract, departureDate: day(daysAhead) };
  };

  const insured = await insure(30, 'AF006');
  const event = must(
    await api.POST('/claims', {
      body: { flightNumber: 'AF006', departureDate: insured.departureDate, status: 'cancelled' },
    }),
    'flight event',
  );
  const today = new Date().toISOString().slice(0, 10);
  const claims = await allClaims(api, {
    fromDate: today,
    toDate: today,
    contractNumber: insured.contract.contractNumber,
  });
  // the contract read back: its flights with what monitoring knows of each, and its claims
  const read = must(
    await api.GET('/contracts/{contractNumber}', {
      params: { path: { contractNumber: insured.contract.contractNumber } },
    }),
    'contract',
  );
  const other = await insure(45, 'AF010');
  const cancelled = must(
    await api.POST('/cancel', { body: { contractNumber: other.contract.contractNumber, reason: 'customer_request' } }),
    'cancel',
  );
  return { quote: insured.quote, contract: insured.contract, event, claims, read, cancelled };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const origin = process.env.PARASOL_ORIGIN ?? 'http://127.0.0.1:3000';
  const apiKey = process.env.PARASOL_API_KEY;
  if (!apiKey) throw new Error('Set PARASOL_API_KEY to a sandbox key (e.g. the demo partner’s, printed at start).');
  const result = await runLifecycle({ origin, apiKey });
  process.stdout.write(
    `contract ${result.contract.contractNumber}: ${result.claims.length} claim(s); ` +
      `cancelled ${result.cancelled.contractNumber}, refund ${result.cancelled.refund.amount} ${result.cancelled.refund.currency}\n`,
  );
}
