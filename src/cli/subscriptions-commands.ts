import { APIS, parseApiName, requirePartner, setSubscription } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { fieldMap, type CommandKit } from './kit.ts';

/** A partner's API subscriptions. */
export function subscriptionsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const subscriptions = group(
    'subscriptions',
    `Choose which APIs a partner's keys reach (${APIS.join(', ')})`,
    'parasol subscriptions list acme-air',
  );
  const apiNames = fieldMap({ '/api': '<api>' });

  for (const [name, subscribed] of [
    ['add', true],
    ['remove', false],
  ] as const) {
    leaf(
      subscriptions,
      `${name} <partner> <api>`,
      subscribed ? `Subscribe a partner to an API (${APIS.join(', ')})` : 'Unsubscribe a partner from an API',
      `parasol subscriptions ${name} acme-air flight-delay`,
    ).action(
      run(async (ref: string, apiText: string) => {
        const api = parseApiName(apiText);
        const partner = await requirePartner(db, ref);
        const before = await repo.listSubscriptions(db, partner.id);
        const after = await setSubscription(db, actor, partner.id, api, subscribed);
        const unchanged = before.includes(api) === subscribed;
        const message = subscribed
          ? unchanged
            ? `${partner.slug} was already subscribed to ${api}.`
            : `Subscribed ${partner.slug} to ${api}.`
          : unchanged
            ? `${partner.slug} was not subscribed to ${api}.`
            : `Unsubscribed ${partner.slug} from ${api}.`;
        return {
          data: { partner: partner.slug, api, changed: !unchanged, subscriptions: after },
          lines: [message, `Subscriptions: ${after.length ? after.join(', ') : 'none'}`],
        };
      }, apiNames),
    );
  }

  leaf(
    subscriptions,
    'list <partner>',
    "List a partner's API subscriptions",
    'parasol subscriptions list acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const list = await repo.listSubscriptions(db, partner.id);
      return {
        data: { partner: partner.slug, subscriptions: list },
        lines: list.length ? list : [`${partner.slug} has no subscriptions.`],
      };
    }),
  );
}
