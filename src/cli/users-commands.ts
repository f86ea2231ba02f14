import type { Command } from 'commander';
import { createUser, requirePartner } from '../partners/index.ts';
import { fieldMap, type CommandKit } from './kit.ts';

/** Partner console users. */
export function usersCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor, io } = kit;

  // ---------------------------------------------------------------------------------------------
  // users

  const users = group(
    'users',
    'Create partner console users',
    'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin',
  );

  leaf(
    users,
    'create <partner>',
    'Create a console user; the password is read from standard input',
    'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin',
  )
    .requiredOption('--email <email>', 'login email')
    .option('--password-stdin', 'read the password (at least 10 characters) from standard input')
    .action(async (ref: string, options: { email: string; passwordStdin?: boolean }, command: Command) => {
      if (!options.passwordStdin)
        command.error('error: pass --password-stdin and the password on standard input (never on the command line)');
      await run(
        async () => {
          const partner = await requirePartner(db, ref);
          const password = (await (io.readStdin ?? readProcessStdin)()).replace(/\r?\n$/, '');
          const user = await createUser(db, actor, { partnerId: partner.id, email: options.email, password });
          return {
            data: { partner: partner.slug, user },
            lines: [`Created user ${user.email} (${user.id}) for ${partner.slug}.`],
          };
        },
        fieldMap({ '/email': '--email', '/password': 'password (stdin)' }),
      )();
    });
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
