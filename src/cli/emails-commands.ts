import { readEmails } from '../notify/index.ts';
import { table, when, type CommandKit } from './kit.ts';

/** The emails (notify/email/): what was sent or is waiting, and the outbox's messages with their text. */
export function emailsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services } = kit;

  const emails = group(
    'emails',
    'Read the emails: sent, waiting, and the outbox (messages kept when no SMTP server is configured)',
    'parasol emails list --kind user_invitation --text',
  );

  leaf(emails, 'list', 'List the latest emails, newest first', 'parasol emails list --limit 20 --text')
    .option('--limit <n>', 'how many (1 to 500)', '20')
    .option('--kind <kind>', 'only this kind (user_invitation, password_reset…)')
    .option('--text', "print each outbox message's text")
    .action(
      run(async (options: { limit: string; kind?: string; text?: boolean }) => {
        const limit = Math.min(Math.max(Number.parseInt(options.limit, 10) || 20, 1), 500);
        const rows = await readEmails(db, services().keys, { limit, kind: options.kind });
        if (rows.length === 0) return { data: { emails: [] }, lines: ['No emails.'] };
        const lines = table(
          ['CREATED', 'KIND', 'PARTNER', 'TO', 'STATUS', 'SUBJECT'],
          rows.map((e) => [
            when(e.createdAt),
            e.kind,
            e.partner ?? '-',
            e.to,
            `${e.status}${e.provider ? ` (${e.provider})` : ''}`,
            e.subject,
          ]),
        );
        if (options.text)
          for (const e of rows) if (e.text !== null) lines.push('', `--- ${e.to}: ${e.subject}`, ...e.text.split('\n'));
        return { data: { emails: rows }, lines };
      }),
    );
}
