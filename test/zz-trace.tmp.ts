import pg from 'pg';
const orig = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (this: any, q: any, ...rest: any[]) {
  if ((globalThis as any).__trace) {
    const text = typeof q === 'string' ? q : q?.text;
    console.log('SQL>', String(text).replace(/\s+/g, ' ').slice(0, 260));
  }
  return orig.call(this, q, ...rest);
};
const { buildTestApp, createTestPartner, subscribeTrip } = await import('./helper.ts');
const t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } });
const p = await createTestPartner(t.db);
await subscribeTrip(t.app, p);
const r0 = await subscribeTrip(t.app, p);
(globalThis as any).__trace = true;
const r = await subscribeTrip(t.app, p);
(globalThis as any).__trace = false;
console.log(r.status, r0.status);
await t.close();
