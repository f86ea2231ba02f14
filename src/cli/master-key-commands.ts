import crypto from 'node:crypto';
import fs from 'node:fs';
import { Option } from 'commander';
import { deriveEncryptionKey, masterKeyFile } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import { auditKeyAdded, rotateSealed, sealedStatus } from '../platform/key-rotation.ts';
import { table, type CommandKit } from './kit.ts';

/** Master encryption key rotation (docs/OPERATIONS.md, "Master key rotation"). */
export function masterKeyCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services, actor } = kit;

  const masterKey = group(
    'master-key',
    'Rotate the master encryption key: re-seal every encrypted field under the current key',
    'parasol master-key status',
  );

  leaf(
    masterKey,
    'status',
    'The current key, and per encrypted column the values sealed and those still under an earlier key',
    'parasol master-key status',
  ).action(
    run(async () => {
      const { keys } = services();
      const columns = await sealedStatus(db, keys.encryption);
      const remaining = columns.reduce((sum, c) => sum + c.remaining, 0);
      return {
        data: {
          currentKeyId: keys.encryption.current.id,
          knownKeyIds: keys.encryption.all.map((k) => k.id),
          remaining,
          columns,
        },
        lines: [
          `Current key ${keys.encryption.current.id}; earlier keys still known: ${
            keys.encryption.all
              .slice(1)
              .map((k) => k.id)
              .join(', ') || 'none'
          }.`,
          remaining === 0
            ? 'Every encrypted value is sealed under the current key: earlier keys can be removed.'
            : `${remaining} value(s) still under an earlier key: run parasol master-key rotate.`,
          '',
          ...table(
            ['TABLE', 'COLUMN', 'SEALED', 'REMAINING'],
            columns.map((c) => [c.table, c.column, String(c.sealed), String(c.remaining)]),
          ),
        ],
      };
    }),
  );

  leaf(
    masterKey,
    'rotate',
    'Re-seal under the current key every value sealed under an earlier one (resumable, while the service runs)',
    'parasol master-key rotate',
  )
    .addOption(new Option('--batch-size <rows>', 'rows per transaction').default('200'))
    .action(
      run(
        async (options: { batchSize: string }) => {
          const batchSize = Number(options.batchSize);
          if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
            throw new DomainError('validation_failed', 'The batch size is not valid.', {
              errors: [
                { field: '/batchSize', code: 'out_of_range', message: 'must be an integer between 1 and 10000' },
              ],
            });
          }
          const { keys } = services();
          const reports = await rotateSealed(db, keys.encryption, { batchSize, actor });
          const failed = reports.filter((r) => r.failed > 0);
          if (failed.length > 0) {
            throw new DomainError(
              'conflict',
              `${failed.reduce((n, r) => n + r.failed, 0)} row(s) could not be opened with any known key (${failed.map((r) => `${r.table}: ${r.error}`).join('; ')}); the others were re-sealed. Add the missing earlier key and run the rotation again.`,
            );
          }
          const rows = reports.reduce((n, r) => n + r.rows, 0);
          return {
            data: {
              currentKeyId: keys.encryption.current.id,
              rows,
              tables: reports.map((r) => ({ table: r.table, rows: r.rows })),
            },
            lines: [
              `Re-sealed ${rows} row(s) under key ${keys.encryption.current.id}.`,
              ...reports.filter((r) => r.rows > 0).map((r) => `  ${r.table}: ${r.rows}`),
              'Check with parasol master-key status, then remove the earlier keys.',
            ],
          };
        },
        (pointer) => ({ '/batchSize': '--batch-size' })[pointer],
      ),
    );

  leaf(
    masterKey,
    'add',
    'With the key file (no PARASOL_MASTER_KEY): make a new random key current, keeping the earlier ones to open',
    'parasol master-key add',
  ).action(
    run(async () => {
      const { config, keys } = services();
      if (config.masterKey) {
        throw new DomainError(
          'conflict',
          'The master key comes from PARASOL_MASTER_KEY: set the new key there and the current one in PARASOL_MASTER_KEYS_PREVIOUS, restart every process, then run parasol master-key rotate.',
        );
      }
      const file = masterKeyFile(config.dataDir);
      const key = crypto.randomBytes(32);
      const lines = fs.readFileSync(file, 'utf8');
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${key.toString('base64')}\n${lines.endsWith('\n') ? lines : `${lines}\n`}`, {
        mode: 0o600,
        flag: 'wx',
      });
      const derived = deriveEncryptionKey(key);
      // audited in a transaction that commits only once the file holds the key (a failed rename: no row)
      try {
        await db.transaction().execute(async (trx) => {
          await auditKeyAdded(trx, actor, derived.id, keys.encryption.current.id);
          fs.renameSync(temporary, file);
        });
      } finally {
        // the temporary file holds every key: never left behind (gone already once renamed)
        fs.rmSync(temporary, { force: true });
      }
      // this process (the embedded server, when the command came through its operator socket) seals with it now
      keys.encryption.add(derived);
      return {
        data: { currentKeyId: derived.id, file },
        lines: [
          `Key ${derived.id} is now current (first line of ${file}; the earlier keys stay on the next lines).`,
          'Run parasol master-key rotate to re-seal what earlier keys sealed.',
        ],
      };
    }),
  );
}
