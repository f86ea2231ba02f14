import { buildTestApp, createTestPartner, trip, FLIGHT } from '../test/helper.ts';
import { issueQuote } from '../src/flight/price-quote.ts';
const t = await buildTestApp({ cacheTtlMs: 5000 });
const p = await createTestPartner(t.db);
const payload = JSON.stringify(trip(30));
const headers = { ...p.auth, 'content-type': 'application/json' };
async function run(label: string, n: number) {
  let t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await t.app.inject({ method: 'POST', url: `${FLIGHT}/getPrice`, payload, headers });
    if (r.statusCode !== 200) throw new Error(r.body);
  }
  console.log(label, ((performance.now() - t0) / n * 1000).toFixed(1), 'µs/req');
}
await run('warm', 3000);
await run('getPrice', 20000);
await t.close();
