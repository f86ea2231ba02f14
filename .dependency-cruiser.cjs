/**
 * Import rules of src/ (docs/ARCHITECTURE.md, "Import rules"), checked by `npm run lint:deps` in
 * .ci/run before the tests. A domain is a folder of src/ (claims, flight, home, limits, monitoring,
 * notify, partners, payouts, policies, reference, risk, webhooks, and the adapters web and cli);
 * platform/ is the shared kernel every domain may use; src/*.ts are the composition roots.
 */

/**
 * The one place platform/ reads a domain: the row types of the tables (db-schema.ts) derive from the
 * domains' vocabularies, their `model.ts` files, which import nothing (type-only imports).
 */
const SCHEMA = '^src/platform/db-schema\\.ts$';
const VOCABULARIES = '^src/[^/]+/((sms|email)/)?model\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle, inside a domain or across domains. A cycle reaching outside cli/ or web/ is still reported from its other modules.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-no-domain',
      severity: 'error',
      comment:
        'platform/ is the shared kernel: it knows no domain (a domain implements its interfaces, app.ts wires them).',
      from: { path: '^src/platform/', pathNot: SCHEMA },
      to: { path: '^src/', pathNot: ['^src/platform/'] },
    },
    {
      name: 'schema-reads-vocabularies-only',
      severity: 'error',
      comment:
        "db-schema.ts derives the tables' row types from the domains' vocabularies (model.ts files), nothing else of a domain.",
      from: { path: SCHEMA },
      to: { path: '^src/', pathNot: ['^src/platform/', VOCABULARIES] },
    },
    {
      name: 'no-other-domain-repo',
      severity: 'error',
      comment: "A repository (*-repo.ts) is private to its domain: another domain goes through the domain's index.ts.",
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/.*-repo\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'domains-through-index',
      severity: 'error',
      comment: 'Another domain is imported only through its public face, src/<domain>/index.ts.',
      from: { path: '^src/([^/]+)/', pathNot: SCHEMA },
      to: { path: '^src/([^/]+)/', pathNot: ['^src/$1/', '^src/platform/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'roots-through-index',
      severity: 'error',
      comment: 'The composition roots (src/*.ts) import a domain only through its index.ts too.',
      from: { path: '^src/[^/]+\\.ts$' },
      // the job registry and the operator commands are composition code themselves
      to: { path: '^src/[^/]+/', pathNot: ['^src/platform/', '^src/[^/]+/index\\.ts$', '^src/jobs/', '^src/cli/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
