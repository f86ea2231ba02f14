import { setTimeout } from 'node:timers/promises';
import { audit } from './audit.ts';
import { decrypt, encrypt, lookupHash, type EncryptionKeys } from './crypto.ts';
import type { Db, Executor } from './db.ts';
import {
  countSealed,
  countStaleRows,
  lockStaleRows,
  SEALED_COLUMNS,
  updateSealed,
  type SealedTable,
} from './sealed-columns-repo.ts';

/**
 * Master key rotation: re-seals, under the current key, every value sealed under an earlier one, and
 * re-hashes the keyed hashes searches match (a contract's booking reference: SEALED_COLUMNS' lookups).
 *
 * Resumable by construction: every sealed value names its key (`v2.<key id>.…`), so the rows still to
 * do are found from the data itself, not from a progress record that could drift. Each batch is one
 * transaction (its rows locked FOR UPDATE, so a concurrent write waits and nothing is lost): a crash
 * loses at most the batch in hand, rolled back, and the next run goes on with what is left. A batch
 * skips the rows another transaction holds locked (never waits holding its own: no deadlock with a
 * service transaction locking the same rows in another order); a table is walked again, pass after
 * pass, until every value no known key opens is the only one left on an earlier key. Safe
 * while the service runs: the service opens any known key and seals with the current one. Each run
 * that finishes writes an audit row (`entity = master_key`, the current key's id, `rotated`, with the
 * rows re-sealed and those no known key opens); a key added writes `added` (`auditKeyAdded`). Key
 * ids only: an id is derived from its key and reveals nothing of it.
 */

export interface ColumnStatus {
  table: string;
  column: string;
  /** Values sealed (not null). */
  sealed: number;
  /** Of those, the values not under the current key yet. */
  remaining: number;
}

export async function sealedStatus(db: Db, keys: EncryptionKeys): Promise<ColumnStatus[]> {
  const prefix = currentPrefix(keys);
  const status: ColumnStatus[] = [];
  for (const table of SEALED_COLUMNS) {
    for (const c of await countSealed(db, table, prefix))
      status.push({ table: table.table, column: c.column, sealed: c.sealed, remaining: c.stale });
  }
  return status;
}

export interface RotationReport {
  table: string;
  /** Rows whose values were re-sealed. */
  rows: number;
  /** Rows with a value no known key opens (left as they are; see the error). */
  failed: number;
  error?: string;
}

/**
 * Re-seals every value not under the current key, table by table, `batchSize` rows a transaction;
 * audited once the run is over, as `actor` (default `system`).
 */
export async function rotateSealed(
  db: Db,
  keys: EncryptionKeys,
  options: { batchSize?: number; onBatch?: (table: string, rows: number) => void; actor?: string } = {},
): Promise<RotationReport[]> {
  const batchSize = options.batchSize ?? 200;
  const prefix = currentPrefix(keys);
  const reports: RotationReport[] = [];
  for (const table of SEALED_COLUMNS) {
    const report: RotationReport = { table: table.table, rows: 0, failed: 0 };
    // pass after pass: a pass walks the table in key order and skips the rows locked by others; the
    // table is done when the rows still on an earlier key are those no known key opened in the last pass
    for (let pass = 0; ; pass++) {
      if (pass > 0) await setTimeout(PASS_PAUSE_MS); // the rows skipped are still locked: give their writers time
      report.failed = 0;
      delete report.error;
      await rotatePass(db, keys, table, prefix, batchSize, report, options.onBatch);
      if ((await countStaleRows(db, table, prefix)) <= report.failed) break;
    }
    reports.push(report);
  }
  await audit(db, {
    actor: options.actor ?? 'system',
    entity: 'master_key',
    entityId: keys.current.id,
    action: 'rotated',
    data: {
      rows: reports.reduce((n, r) => n + r.rows, 0),
      failed: reports.reduce((n, r) => n + r.failed, 0),
      tables: reports
        .filter((r) => r.rows > 0 || r.failed > 0)
        .map((r) => ({ table: r.table, rows: r.rows, failed: r.failed })),
    },
  });
  return reports;
}

/** The pause before a table's next pass, while the rows the last one skipped are locked by their writers. */
const PASS_PAUSE_MS = 200;

/**
 * One walk of `table` in key order, `batchSize` rows a transaction, skipping the rows locked by other
 * transactions: re-seals what it takes, counts in `report` the rows re-sealed and those no known key opens.
 */
async function rotatePass(
  db: Db,
  keys: EncryptionKeys,
  table: SealedTable,
  prefix: string,
  batchSize: number,
  report: RotationReport,
  onBatch: ((table: string, rows: number) => void) | undefined,
): Promise<void> {
  let after: unknown[] | undefined;
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      const rows = await lockStaleRows(trx, table, prefix, after, batchSize);
      for (const row of rows) {
        after = table.key.map((c) => row[c]);
        try {
          const values: Record<string, string> = {};
          for (const column of table.columns) {
            const sealed = row[column];
            if (typeof sealed !== 'string' || sealed.startsWith(prefix)) continue;
            const plaintext = decrypt(keys, sealed);
            values[column] = encrypt(keys, plaintext);
            // its keyed hash follows it under the current key (a search matches every known key's meanwhile)
            for (const lookup of table.lookups ?? [])
              if (lookup.of === column) values[lookup.column] = lookupHash(keys, lookup.purpose, plaintext);
          }
          await updateSealed(trx, table, row, values);
          report.rows++;
        } catch (error) {
          report.failed++;
          report.error ??= (error as Error).message;
        }
      }
      return rows.length;
    });
    if (done > 0) onBatch?.(table.table, report.rows);
    if (done < batchSize) return;
  }
}

/** The audit row of a master key made current (`master-key add`): its id and the one it replaces, never a key. */
export async function auditKeyAdded(db: Executor, actor: string, keyId: string, previousKeyId: string): Promise<void> {
  await audit(db, {
    actor,
    entity: 'master_key',
    entityId: keyId,
    action: 'added',
    data: { previousKeyId },
  });
}

function currentPrefix(keys: EncryptionKeys): string {
  return `v2.${keys.current.id}.`;
}
