import type { Db } from '../src/platform/db.ts';

/**
 * `db` whose next read of `table` (`'users'`, or `'users as u'`) answers only once `release` is
 * called: its query has run, so what it read is from before anything the test does meanwhile.
 * `held` resolves when that read is held. Only the first such read is held; every other query runs
 * as usual. Races are thus played in the order a test names, not left to timing.
 */
export function holdingNextRead(db: Db, table: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  let armed = true;
  const hold = <T extends object>(builder: T): T =>
    new Proxy(builder, {
      get(target, property) {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== 'function') return value;
        if (typeof property === 'string' && property.startsWith('execute'))
          return async (...args: unknown[]) => {
            const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            reached();
            await released;
            return result;
          };
        return (...args: unknown[]) => {
          const next = (value as (...a: unknown[]) => unknown).apply(target, args);
          return next && typeof next === 'object' && 'execute' in next ? hold(next) : next;
        };
      },
    });
  const proxy = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (property !== 'selectFrom') return typeof value === 'function' ? value.bind(target) : value;
      return (from: string) => {
        const builder = target.selectFrom(from as never);
        if (!armed || (from !== table && !from.startsWith(`${table} `))) return builder;
        armed = false;
        return hold(builder);
      };
    },
  });
  return { db: proxy as Db, held, release };
}
