import type { AdminHandler } from '../../routing/operations.js';
import type { AccountReports } from '../../../accounts/account-reports.js';
import type { Catalog } from '../../../config/catalog.js';

/** The catalog, usage, the ledger and the audit log, read as they are. */
export function adminReportHandlers(reports: AccountReports, catalog: Catalog): {
  adminListPlans: AdminHandler<'adminListPlans'>;
  adminKeyUsage: AdminHandler<'adminKeyUsage'>;
  adminKeyRequests: AdminHandler<'adminKeyRequests'>;
  adminAuditLog: AdminHandler<'adminAuditLog'>;
} {
  return {
    adminListPlans: async (_v, _req, res) => {
      const { plain, browser, 'browser-source': browserSource } = catalog.costs;
      res.json({ plans: catalog.plans.map((p) => ({ name: p.name, credits: p.credits, max_concurrency: p.maxConcurrency })), costs: { plain, browser_source: browserSource, browser } });
    },
    adminKeyUsage: async ({ path, query }, _req, res) => void res.json(await reports.usage(path.id, query)),
    adminKeyRequests: async ({ path, query }, _req, res) => void res.json(await reports.requests(path.id, query)),
    adminAuditLog: async ({ query }, _req, res) => void res.json(await reports.audit({ keyId: query.key_id, limit: query.limit, cursor: query.cursor })),
  };
}
