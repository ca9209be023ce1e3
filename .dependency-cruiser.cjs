/**
 * The direction of every import in src/, checked by `npm test` (scripts/run-tests.sh) and by
 * test/architecture/dependency-rules.test.ts. The layers, top down (docs/architecture.md):
 *
 *   index, server/, cli/        the composition root: builds every part
 *   http, dashboard             the edge: routes, decoding, answers; the operator's pages
 *   jobs                        work that arrives without a request of its own
 *   webhooks                    the jobs' signed callbacks: implements the ports jobs/ declares for them
 *   scrape                      the scrape service: one request, billed, fetched, answered
 *   accounts                    the rules of keys and plans
 *   billing                     what a request costs; its storage is a port
 *   engines                     plain and browser fetchers
 *   content                     HTML to text, Markdown and extracted JSON, in worker threads
 *   egress                      the one way out: target policy, proxies, checked connections
 *   store                       all SQL: implements the ports of billing, accounts, dashboard, jobs
 *   config, observability, ip, time, process, generated   foundations
 *   client                      the published clients: stand alone
 */
const forbid = (name, from, to, comment) => ({ name, comment, severity: 'error', from: { path: from }, to: { path: to } });
const TOP = '^src/index\\.ts$|^src/(server|cli)/';
const EDGE = '^src/(http|dashboard)/';
const FOUNDATIONS = '^src/(config|observability|ip|time|process|generated)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'Import cycles hide which part depends on which.', severity: 'error', from: {}, to: { circular: true } },
    forbid('composition-is-the-top', '^src/(?!index\\.ts$|server/|cli/)', TOP, 'Only the composition root builds the parts.'),
    {
      name: 'edge-is-the-top',
      comment: 'The HTTP edge (routing, validation, answers, the dashboard) calls down; nothing below it knows HTTP. The store implements the ports the dashboard declares.',
      severity: 'error',
      from: { path: '^src/(?!http/|dashboard/|index\\.ts$|server/|cli/)' },
      to: { path: EDGE, pathNot: '^src/dashboard/[a-z-]+-ports\\.ts$' },
    },
    {
      name: 'jobs-below-the-edge',
      comment: 'Jobs are started by the edge and the composition root; the scrape service does not know them. The store implements the ports the jobs declare.',
      severity: 'error',
      from: { path: '^src/(?!jobs/|webhooks/|http/|dashboard/|index\\.ts$|server/|cli/)' },
      to: { path: '^src/jobs/', pathNot: '^src/jobs/(job-(store|ports)|crawl/crawl-store)\\.ts$' },
    },
    forbid('scrape-below-the-edge-and-jobs', '^src/(accounts|billing|engines|content|egress|store|config|observability|ip|time|process|generated)/', '^src/scrape/',
      'The scrape service uses the engines, the content and the billing; they do not know it.'),
    forbid('accounts-below-the-edge', '^src/(scrape|billing|engines|content|egress|config|observability|ip|time|process|generated)/', '^src/accounts/',
      'The account rules are called by the edge and the CLI; nothing they use knows them (the store implements their ports).'),
    forbid('accounts-know-no-sql', '^src/accounts/', '^src/store/', 'The account rules use the ports they are given (accounts/*-port.ts); the store implements them.'),
    forbid('dashboard-knows-no-sql', '^src/dashboard/', '^src/store/', 'The dashboard uses the ports it is given; the store implements them.'),
    forbid('dashboard-beside-the-scraping', '^src/dashboard/', '^src/(scrape|engines|content|egress|jobs)/', 'The dashboard shows accounts; it scrapes nothing.'),
    forbid('billing-knows-no-engine-or-sql', '^src/billing/', '^src/(engines|content|egress|store|observability)/',
      'The billing is its rules and the storage port it is given.'),
    forbid('engines-below-scrape', '^src/engines/', '^src/(billing|store|content)/', 'Engines fetch; they neither bill, store nor read the page.'),
    forbid('content-is-pure', '^src/content/', '^src/(billing|store|engines|egress|observability)/', 'HTML in, text, Markdown or JSON out: content knows nothing of how the page came.'),
    forbid('egress-below-engines', '^src/egress/', '^src/(engines|billing|store|content)/', 'The way out knows nothing of the engines.'),
    forbid('store-below-the-rules', '^src/store/', '^src/(scrape|engines|content|egress|observability)/', 'The store implements ports; it uses none of the layers that call it.'),
    forbid('foundations-are-leaves', FOUNDATIONS, '^src/(?!config/|observability/|ip/|time/|process/|generated/)', 'The foundations import nothing of the service.'),
    forbid('client-is-standalone', '^src/client/(?!admin/)', '^src/(?!client/|generated/)', 'The published client carries only itself and the generated types.'),
    forbid('admin-client-is-standalone', '^src/client/admin/', '^src/(?!client/|generated/)', 'The published admin client carries only itself, the client\'s helpers and the generated types.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
