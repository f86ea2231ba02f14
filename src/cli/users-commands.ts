import type { Command } from 'commander';
import { createUser, listUsers, parseRole, requirePartner, USER_ROLES } from '../partners/index.ts';
import { unlockAccount } from '../web/index.ts';
import { fieldMap, table, when, type CommandKit } from './kit.ts';

/** Partner console users. */
export function usersCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor, io, services } = kit;

  // ---------------------------------------------------------------------------------------------
  // users

  const users = group(
    'users',
    'Create and list partner console users',
    'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin',
  );

  leaf(
    users,
    'create <partner>',
    'Create a console user; the password is read from standard input',
    'printf %s "$PASSWORD" | parasol users create acme-air --email ops@acme.example --password-stdin',
  )
    .requiredOption('--email <email>', 'login email')
    .option('--role <role>', `what the user may do: ${USER_ROLES.join(', ')} (docs/portal.md)`, 'admin')
    .option('--password-stdin', 'read the password (at least 10 characters) from standard input')
    .action(
      async (ref: string, options: { email: string; role: string; passwordStdin?: boolean }, command: Command) => {
        if (!options.passwordStdin)
          command.error('error: pass --password-stdin and the password on standard input (never on the command line)');
        await run(
          async () => {
            const partner = await requirePartner(db, ref);
            const password = (await (io.readStdin ?? readProcessStdin)()).replace(/\r?\n$/, '');
            const role = parseRole(options.role);
            const user = await createUser(db, actor, { partnerId: partner.id, email: options.email, password, role });
            return {
              data: { partner: partner.slug, user },
              lines: [`Created user ${user.email} (${user.id}, ${user.role}) for ${partner.slug}.`],
            };
          },
          fieldMap({ '/email': '--email', '/password': 'password (stdin)', '/role': '--role' }),
        )();
      },
    );

  leaf(users, 'list <partner>', "List a partner's console users", 'parasol users list acme-air --json').action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const rows = await listUsers(db, partner.id);
      return {
        data: rows.map((u) => ({
          id: u.id,
          email: u.email,
          role: u.role,
          status: u.activatedAt ? 'active' : 'invited',
          lastSignInAt: u.lastSignInAt,
        })),
        lines: rows.length
          ? table(
              ['EMAIL', 'ROLE', 'STATUS', 'LAST SIGN-IN'],
              rows.map((u) => [u.email, u.role, u.activatedAt ? 'active' : 'invited', when(u.lastSignInAt)]),
            )
          : [`No users for ${partner.slug}.`],
      };
    }),
  );

  leaf(
    users,
    'unlock <email>',
    'End the sign-in lock of an account now (five wrong passwords lock it for 15 minutes); audited',
    'parasol users unlock ops@acme.example',
  )
    .option('--operator', 'an operator console account (default: a partner user)')
    .action(
      run(async (email: string, options: { operator?: boolean }) => {
        const kind = options.operator ? 'operator' : 'partner';
        const counted = await unlockAccount({ db, keys: services().keys }, kind, email, actor);
        return {
          data: { email, kind, unlocked: counted },
          lines: [
            counted
              ? `Sign-in of ${email} (${kind}) unlocked: its failed attempts are forgotten.`
              : `No failed sign-in counted for ${email} (${kind}): nothing to unlock.`,
          ],
        };
      }),
    );
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
