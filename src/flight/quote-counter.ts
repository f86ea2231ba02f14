import type { Environment } from '../platform/db-schema.ts';
import type { Db } from '../platform/db.ts';
import { addQuoteCounts } from './contracts-repo.ts';

/**
 * Counts quotes without writing per quote: `/getPrice` adds one to an in-memory counter per
 * (partner, environment, hour); `flush` adds the counts to `quote_counts` in one statement (the app
 * does it every 5 s and at shutdown). Several processes add up, since each adds only its own counts.
 * A process that dies loses at most its last few seconds of counts: statistics, not records.
 */
export class QuoteCounter {
  private counts = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  count(partnerId: string, environment: Environment, at: Date): void {
    const key = `${partnerId}|${environment}|${Math.floor(at.getTime() / 3_600_000)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  async flush(db: Db): Promise<void> {
    // a flush under way took the counts of before it began: wait for it, then write the newer ones
    if (this.flushing) await this.flushing.catch(() => undefined);
    if (this.counts.size === 0) return;
    const batch = this.counts;
    this.counts = new Map();
    const rows = [...batch].map(([key, quotes]) => {
      const [partnerId, environment, hour] = key.split('|') as [string, Environment, string];
      return { partner_id: partnerId, environment, hour: new Date(Number(hour) * 3_600_000), quotes };
    });
    this.flushing = addQuoteCounts(db, rows)
      .then(
        () => undefined,
        (error: unknown) => {
          // put the counts back: the next flush tries again
          for (const [key, quotes] of batch) this.counts.set(key, (this.counts.get(key) ?? 0) + quotes);
          throw error;
        },
      )
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }
}
