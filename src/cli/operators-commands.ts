import { createOperatorToken, listOperatorTokens, revokeOperatorToken } from '../platform/operator-tokens.ts';
import { table, when, type CommandKit } from './kit.ts';

/** The insurer's operator tokens (the API credentials of POST /flight-delay/v1/claims). */
export function operatorsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const operators = group(
    'operators',
    "The insurer's API credentials (POST /flight-delay/v1/claims in any environment)",
    'parasol operators token-create --name night-shift',
  );

  leaf(
    operators,
    'token-create',
    'Create an operator token (shown once)',
    'parasol operators token-create --name night-shift',
  )
    .requiredOption('--name <name>', 'who or what uses it')
    .action(
      run(
        async (options: { name: string }) => {
          const { token, plaintext } = await createOperatorToken(db, actor, options.name);
          return {
            data: { token, plaintext },
            lines: [
              `Created operator token ${token.name} (${token.id}).`,
              '',
              `  ${plaintext}`,
              '',
              'It is shown only now: store it in your secrets manager.',
            ],
          };
        },
        (pointer) => ({ '/name': '--name' })[pointer],
      ),
    );

  leaf(operators, 'token-list', 'List operator tokens', 'parasol operators token-list').action(
    run(async () => {
      const tokens = await listOperatorTokens(db);
      const lines = tokens.length
        ? table(
            ['NAME', 'ID', 'CREATED', 'LAST USED', 'REVOKED'],
            tokens.map((t) => [t.name, t.id, when(t.createdAt), when(t.lastUsedAt), when(t.revokedAt)]),
          )
        : ['No operator tokens.'];
      return { data: { tokens }, lines };
    }),
  );

  leaf(operators, 'token-revoke <id>', 'Revoke an operator token', 'parasol operators token-revoke 0b9f…').action(
    run(async (id: string) => {
      const token = await revokeOperatorToken(db, actor, id);
      return { data: { token }, lines: [`Revoked operator token ${token.name} (${token.id}).`] };
    }),
  );
}
