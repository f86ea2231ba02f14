import { Option } from 'commander';
import {
  createApiKey,
  ENVIRONMENTS,
  MAX_LABEL_LENGTH,
  requirePartner,
  revokeApiKey,
  type Environment,
} from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError } from '../platform/errors.ts';
import { table, UUID, when, type CommandKit } from './kit.ts';
import { keyJson } from './partner-output.ts';

/** API keys: create, list, revoke. */
export function keysCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const keys = group('keys', 'Create, list and revoke API keys', 'parasol keys list acme-air');

  leaf(
    keys,
    'create <partner>',
    'Create an API key; its plaintext is shown once',
    'parasol keys create acme-air --env sandbox --label "staging server"',
  )
    .addOption(
      new Option('--env <environment>', 'environment of the key (preproduction and production need a signed agreement)')
        .choices(ENVIRONMENTS)
        .makeOptionMandatory(),
    )
    .option('--label <text>', `free text to recognise the key later (at most ${MAX_LABEL_LENGTH} characters)`)
    .action(
      run(async (ref: string, options: { env: Environment; label?: string }) => {
        const partner = await requirePartner(db, ref);
        const { key, plaintext } = await createApiKey(db, actor, {
          partnerId: partner.id,
          environment: options.env,
          label: options.label,
        });
        const warning = 'Store this key now: it is not stored in clear and will not be shown again.';
        return {
          data: { partner: partner.slug, key: keyJson(key), plaintext, warning },
          lines: [
            `Created ${key.environment} key ${key.id} for ${partner.slug}${key.label ? ` (${key.label})` : ''}:`,
            '',
            `  ${plaintext}`,
            '',
            warning,
          ],
        };
      }),
    );

  leaf(
    keys,
    'list <partner>',
    "List a partner's API keys (never their plaintext)",
    'parasol keys list acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listApiKeys(db, partner.id);
      const lines = list.length
        ? table(
            ['ID', 'KEY', 'ENV', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
            list.map((k) => [
              k.id,
              k.display,
              k.environment,
              k.label ?? '-',
              when(k.createdAt),
              when(k.lastUsedAt),
              when(k.revokedAt),
            ]),
          )
        : [`${partner.slug} has no API keys.`];
      return { data: { partner: partner.slug, keys: list.map(keyJson) }, lines };
    }),
  );

  leaf(
    keys,
    'revoke <partner> <keyId>',
    'Revoke an API key at once (the id comes from keys list)',
    'parasol keys revoke acme-air 0b6f3c1e-2a4d-4c55-9a51-3f0c2f0d9e7a',
  ).action(
    run(async (ref: string, keyId: string) => {
      const partner = await requirePartner(db, ref);
      if (!UUID.test(keyId)) throw new DomainError('api_key_not_found', `No API key ${keyId} for this partner.`);
      const startedAt = Date.now();
      const key = await revokeApiKey(db, actor, partner.id, keyId);
      const already = key.revokedAt !== null && key.revokedAt.getTime() < startedAt;
      return {
        data: { partner: partner.slug, alreadyRevoked: already, key: keyJson(key) },
        lines: [
          already
            ? `Key ${key.display} (${key.id}) was already revoked on ${when(key.revokedAt)}.`
            : `Revoked ${key.environment} key ${key.display} (${key.id}) of ${partner.slug}.`,
        ],
      };
    }),
  );
}
