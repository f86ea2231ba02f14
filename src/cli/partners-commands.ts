import { createPartner, requirePartner } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { fieldMap, pairs, table, when, type CommandKit } from './kit.ts';
import { agreementJson, agreementLines, configurationJson, configurationLines, keysSummary } from './partner-output.ts';

/** Partners: create, list, show (with their agreement, subscriptions, configuration and keys). */
export function partnersCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const partners = group('partners', 'Create, list and show partners', 'parasol partners list');

  leaf(
    partners,
    'create',
    'Create a partner (no agreement, subscription or key yet)',
    'parasol partners create --slug acme-air --name "Acme Air"',
  )
    .requiredOption('--slug <slug>', 'lowercase letters, digits and dashes; used in URLs and commands')
    .requiredOption('--name <name>', 'display name')
    .action(
      run(
        async (options: { slug: string; name: string }) => {
          const partner = await createPartner(db, actor, { slug: options.slug, name: options.name });
          return { data: { partner }, lines: [`Created partner ${partner.slug} (${partner.id}).`] };
        },
        fieldMap({ '/slug': '--slug', '/name': '--name' }),
      ),
    );

  leaf(partners, 'list', 'List all partners', 'parasol partners list').action(
    run(async () => {
      const all = await repo.listPartners(db);
      const lines = all.length
        ? table(
            ['SLUG', 'NAME', 'ID', 'CREATED'],
            all.map((p) => [p.slug, p.name, p.id, when(p.createdAt)]),
          )
        : ['No partners yet. Create one with: parasol partners create --slug <slug> --name <name>'];
      return { data: { partners: all }, lines };
    }),
  );

  leaf(
    partners,
    'show <partner>',
    'Show a partner: agreement, subscriptions, current configuration and keys',
    'parasol partners show acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const [agreement, subscriptions, configuration, keys] = await Promise.all([
        repo.findAgreement(db, partner.id),
        repo.listSubscriptions(db, partner.id),
        repo.findCurrentConfiguration(db, partner.id),
        repo.listApiKeys(db, partner.id),
      ]);
      const summary = keysSummary(keys);
      const lines = [
        ...pairs([
          ['Partner', `${partner.slug} (${partner.id})`],
          ['Name', partner.name],
          ['Created', when(partner.createdAt)],
          ['Subscriptions', subscriptions.length ? subscriptions.join(', ') : 'none'],
          [
            'Keys',
            summary.length
              ? summary.map((s) => `${s.environment} ${s.active} active, ${s.revoked} revoked`).join('; ')
              : 'none',
          ],
        ]),
        '',
        ...agreementLines(agreement),
        '',
        ...configurationLines(configuration),
      ];
      return {
        data: {
          partner,
          agreement: agreement ? agreementJson(agreement) : null,
          subscriptions,
          configuration: configuration ? configurationJson(configuration) : null,
          keys: summary,
        },
        lines,
      };
    }),
  );
}
