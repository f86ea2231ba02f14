import { FLIGHT_PREFIX, GETTING_STARTED_EXAMPLES } from '../flight/index.ts';
import { DEMO_PREFIX, exampleHome } from '../home/index.ts';
import { APIS, type ApiName } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { POLICY_ADMIN_PREFIX } from '../policies/index.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Lang } from '../i18n/index.ts';

/** The developer portal's API catalog: what each API is, and which ones a partner may see. */

export interface CatalogEntry {
  api: ApiName;
  /** The portal name, as in shared/API.md. */
  name: string;
  prefix: string;
  /** The app decorator that renders the API's OpenAPI document (platform/openapi.ts). */
  decorator: string;
  summary: Record<Lang, string>;
  /** A first call for the getting-started steps. */
  example: { method: 'GET' | 'POST'; path: string; body?: unknown };
  /** The calls that follow the first one on the getting-started page, each with what it does. */
  next?: { what: Record<Lang, string>; method: 'GET' | 'POST'; path: string; body?: unknown }[];
}

export const CATALOG: Record<ApiName, CatalogEntry> = {
  'flight-delay': {
    api: 'flight-delay',
    name: 'Flight Delay and Cancellation API',
    prefix: FLIGHT_PREFIX,
    decorator: 'flightDelayOpenapi',
    summary: {
      en: 'Sell parametric flight delay and cancellation insurance at booking: quote a trip with your configuration, subscribe a contract from the quote, read it back, change its customer contact or its flights, cancel one passenger or one leg with the refund of its share or the whole contract before departure with a full refund, and list the claims the platform opens by itself when an insured flight is delayed or cancelled, each with its evidence. Every quote carries the documents your customer must receive before buying (product information document and terms) and the insurer’s identity: show them, and send the customer’s consent to that version with /subscribe. A codeshare leg names both flights: the flight your customer booked (flightNumber, e.g. AF3612) and the one that operates it (operatingFlightNumber, DL264): the platform watches the operating flight, and claims and messages show the flight your customer booked.',
      fr: 'Vendez une assurance paramétrique retard et annulation de vol à la réservation : tarifez un voyage avec votre configuration, souscrivez un contrat à partir du devis, relisez-le, changez le contact du client ou ses vols, annulez un passager ou un trajet avec le remboursement de sa part ou tout le contrat avant le départ avec remboursement intégral, et listez les sinistres que la plateforme ouvre d’elle-même quand un vol assuré est retardé ou annulé, chacun avec ses preuves. Chaque devis porte les documents que votre client doit recevoir avant d’acheter (document d’information sur le produit et conditions générales) et l’identité de l’assureur : montrez-les, et envoyez avec /subscribe le consentement du client à cette version. Un vol en partage de code nomme les deux vols : celui que votre client a réservé (flightNumber, par ex. AF3612) et celui qui l’opère (operatingFlightNumber, DL264) : la plateforme surveille le vol opérant, et les sinistres et les messages montrent le vol réservé par votre client.',
    },
    example: {
      method: 'POST',
      path: '/getPrice',
      // the OpenAPI examples: the story the document tells and the example test runs
      body: GETTING_STARTED_EXAMPLES.quote,
    },
    next: [
      {
        what: {
          en: 'The airline moves a flight, or the customer rebooks: preview the change of a contract’s flight (leg 0 the outbound, 1 the return; same route and airline), priced with the current model and your configuration — the premium difference to charge or refund, and a change reference valid 30 minutes.',
          fr: 'La compagnie déplace un vol, ou le client change de réservation : prévisualisez le changement de vol d’un contrat (leg 0 l’aller, 1 le retour ; même trajet et même compagnie), tarifé avec le modèle courant et votre configuration — l’écart de prime à facturer ou rembourser, et une référence de changement valable 30 minutes.',
        },
        method: 'POST',
        path: '/contracts/FD-7K3M-9QXT/flight-change/preview',
        body: GETTING_STARTED_EXAMPLES.flightChangePreview,
      },
      {
        what: {
          en: 'Confirm it: the contract keeps its number and moves to its next version (listed in "versions" of GET /contracts/{contractNumber}); the webhook contract.changed follows.',
          fr: 'Confirmez-le : le contrat garde son numéro et passe à sa version suivante (listée dans « versions » de GET /contracts/{contractNumber}) ; le webhook contract.changed suit.',
        },
        method: 'POST',
        path: '/contracts/FD-7K3M-9QXT/flight-change',
        body: GETTING_STARTED_EXAMPLES.flightChange,
      },
      {
        what: {
          en: 'One passenger no longer travels, or the return is cancelled: preview the refund of their share (passengers: how many leave; or leg: 1), then send the same body to /partial-cancellation. The rest stays covered; the contract moves to its next version.',
          fr: 'Un passager ne voyage plus, ou le retour est annulé : prévisualisez le remboursement de sa part (passengers : combien partent ; ou leg : 1), puis envoyez le même corps à /partial-cancellation. Le reste reste couvert ; le contrat passe à sa version suivante.',
        },
        method: 'POST',
        path: '/contracts/FD-7K3M-9QXT/partial-cancellation/preview',
        body: { passengers: 1, reason: 'customer_request' },
      },
    ],
  },
  demo: {
    api: 'demo',
    name: 'Demo API',
    prefix: DEMO_PREFIX,
    decorator: 'demoOpenapi',
    summary: {
      en: 'The first API to try: the cities of a French zip code (La Poste data), and a home-insurance quote priced from a published rating table.',
      fr: 'La première API à essayer : les communes d’un code postal français (données La Poste), et un devis d’assurance habitation calculé d’après un barème publié.',
    },
    example: { method: 'POST', path: '/getCityByZipCode', body: { zipCode: '75007' } },
    next: [
      {
        what: {
          en: 'Quote a home insurance: the city as /getCityByZipCode answers it, the home, the coverage level and the options (the worked example of the published rating table). The answer gives the annual and monthly premiums, the coverages, and a quoteReference valid 30 days that the API to manage policies takes with a home policy.',
          fr: 'Tarifez une assurance habitation : la commune telle que /getCityByZipCode la renvoie, le logement, le niveau de garantie et les options (l’exemple détaillé du barème publié). La réponse donne les primes annuelle et mensuelle, les garanties et une quoteReference valable 30 jours, que l’API de gestion des polices accepte avec une police habitation.',
        },
        method: 'POST',
        path: '/getPrice',
        body: exampleHome,
      },
    ],
  },
  'policy-admin': {
    api: 'policy-admin',
    name: 'API to manage policies',
    prefix: POLICY_ADMIN_PREFIX,
    decorator: 'policyAdminOpenapi',
    summary: {
      en: 'Connect your policy-administration system to the insurer’s database: record policies (idempotent), read them, search them, put pending ones in force, keep the policyholder’s details current, register a new car once it has its plate, renew them for a new term and cancel them. Only your own policies, ever.',
      fr: 'Reliez votre système de gestion de contrats à la base de l’assureur : enregistrez des polices (de façon idempotente), lisez-les, cherchez-les, mettez en vigueur celles en attente, tenez à jour les coordonnées de l’assuré, immatriculez un véhicule neuf une fois sa plaque reçue, renouvelez-les pour une nouvelle période et résiliez-les. Uniquement les vôtres.',
    },
    example: { method: 'GET', path: '/policies?limit=10' },
  },
};

/** The APIs a partner is subscribed to, in catalog order. */
export async function subscribedApis(db: Db, partnerId: string): Promise<CatalogEntry[]> {
  const subscribed = new Set(await repo.listSubscriptions(db, partnerId));
  return APIS.filter((api) => subscribed.has(api)).map((api) => CATALOG[api]);
}

/** One API of the catalog, only if the partner is subscribed to it: 404 otherwise (as if absent). */
export async function requireSubscribedApi(db: Db, partnerId: string, api: string): Promise<CatalogEntry> {
  const entry = (APIS as readonly string[]).includes(api) ? CATALOG[api as ApiName] : undefined;
  if (!entry || !(await repo.listSubscriptions(db, partnerId)).includes(entry.api))
    throw new DomainError('not_found', `No API ${api}.`);
  return entry;
}

/**
 * The OpenAPI document to download: the one served at `{prefix}/openapi.json`, with its server made
 * absolute (the partner's base URL) so that generated clients work without editing it.
 */
export function apiDefinition(document: unknown, entry: CatalogEntry, publicUrl: string): Record<string, unknown> {
  const doc = structuredClone(document) as Record<string, unknown>;
  doc.servers = [
    {
      url: `${publicUrl}${entry.prefix}`,
      description:
        'Parasol. One deployment serves the sandbox, preproduction and production environments: the API key decides which.',
      'x-internal': false,
    },
  ];
  return doc;
}
