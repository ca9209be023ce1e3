import type { Knex } from 'knex';
import * as initial from './001-initial.js';
import * as browserFailureBudget from './002-browser-failure-budget.js';
import * as requestLedger from './003-request-ledger.js';
import * as ledgerBatches from './004-ledger-batches.js';
import * as allowedIps from './005-allowed-ips.js';
import * as rotationAndAudit from './006-rotation-and-audit.js';
import * as usageRefusals from './007-usage-refusals.js';
import * as dashboard from './008-dashboard.js';
import * as operatorAddresses from './009-operator-addresses.js';
import * as jobs from './010-jobs.js';
import * as webhooks from './011-webhooks.js';
import * as crawls from './012-crawls.js';
import * as idempotencyByKind from './013-idempotency-by-kind.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-browser-failure-budget': browserFailureBudget,
  '003-request-ledger': requestLedger,
  '004-ledger-batches': ledgerBatches,
  '005-allowed-ips': allowedIps,
  '006-rotation-and-audit': rotationAndAudit,
  '007-usage-refusals': usageRefusals,
  '008-dashboard': dashboard,
  '009-operator-addresses': operatorAddresses,
  '010-jobs': jobs,
  '011-webhooks': webhooks,
  '012-crawls': crawls,
  '013-idempotency-by-kind': idempotencyByKind,
};

/** Migrations are modules, not files found at run time, so they work the same from source or a bundle. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
