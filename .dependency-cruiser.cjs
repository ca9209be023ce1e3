/**
 * The direction of every import in src/, checked by `npm test` (scripts/run-tests.sh) and by
 * test/architecture/dependency-rules.test.ts. The layers, top down:
 *
 *   index, server, cli (composition) → handlers (on the HTTP edge's types: api, http) → scrape → billing
 *   handlers → accounts (the rules of keys and plans, shared with the CLI) → store
 *   dashboard (pages on the HTTP edge, beside the handlers) → accounts, billing, store
 *   scrape → fetchers → egress → proxies, target-policy → net, time
 *   store (the SQL) implements billing's storage; config, errors, generated, net, time below all.
 */
const forbid = (name, from, to, comment) => ({ name, comment, severity: 'error', from: { path: from }, to: { path: to } });
const TOP = '^src/(index|server)\\.ts$|^src/cli/';
const EDGE = '^src/(http|api)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'Import cycles hide which part depends on which.', severity: 'error', from: {}, to: { circular: true } },
    forbid('composition-is-the-top', '^src/(?!index\\.ts$|server\\.ts$|cli/)', TOP, 'Only the composition root builds the parts.'),
    forbid('edge-above-the-service', '^src/(accounts|scrape|billing|fetchers|egress|proxies|target-policy|store|config|errors|net|time|observability)/', EDGE,
      'The HTTP edge (routing, validation, answers) calls down; nothing below the handlers knows HTTP.'),
    forbid('handlers-are-thin-and-on-top', '^src/(?!handlers/|index\\.ts$|server\\.ts$)', '^src/handlers/', 'Only the composition root knows the handlers; the router is given them.'),
    forbid('dashboard-on-top', '^src/(?!dashboard/|index\\.ts$|server\\.ts$)', '^src/dashboard/', 'Only the composition root mounts the dashboard.'),
    forbid('dashboard-beside-the-scraping', '^src/dashboard/', '^src/(handlers|scrape|fetchers|egress|proxies|target-policy)/', 'The dashboard shows accounts; it scrapes nothing.'),
    forbid('scrape-below-handlers', '^src/(billing|fetchers|egress|proxies|target-policy|store|config|errors|net|time)/', '^src/scrape/',
      'The scrape service uses the engines and the billing; they do not know it.'),
    forbid('billing-knows-no-engine-or-sql', '^src/billing/', '^src/(fetchers|egress|proxies|target-policy|store|observability)/',
      'The billing is its rules and the storage port it is given.'),
    forbid('fetchers-below-scrape', '^src/fetchers/', '^src/(billing|store)/', 'Engines fetch; they neither bill nor store.'),
    forbid('egress-below-fetchers', '^src/(egress|proxies|target-policy)/', '^src/(fetchers|billing|store)/', 'The way out knows nothing of the engines.'),
    forbid('proxies-and-policy-below-egress', '^src/(proxies|target-policy)/', '^src/egress/', 'Proxies and the target policy are what the egress uses.'),
    forbid('accounts-below-handlers', '^src/(scrape|billing|fetchers|egress|proxies|target-policy|store|config|errors|net|time)/', '^src/accounts/',
      'The account rules are called by the handlers and the CLI; nothing they use knows them.'),
    forbid('store-config-errors-depend-on-no-layer', '^src/(store|config|errors)/', '^src/(handlers|scrape|fetchers|egress|proxies|target-policy|observability)/',
      'store, config and errors depend on none of the layers.'),
    forbid('config-errors-leaves', '^src/(config|errors)/', '^src/(billing|store)/', 'config and errors are leaves.'),
    forbid('foundations-are-leaves', '^src/(net|time|generated)/', '^src/(?!net/|time/|generated/)', 'The foundations import nothing of the service.'),
    forbid('client-is-standalone', '^src/client/', '^src/(?!client/|generated/)', 'The published client carries only itself and the generated types.'),
    forbid('admin-client-is-standalone', '^src/admin-client/', '^src/(?!admin-client/|client/|generated/)', 'The published admin client carries only itself, the client\'s helpers and the generated types.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
