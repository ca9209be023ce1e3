import { parseArgs } from 'node:util';
import { accountParts } from '../accounts/account-parts.js';
import type { KeyRecord } from '../accounts/key-record.js';
import { loadCatalog, type Catalog } from '../config/catalog.js';
import { InvalidAccountChangeError, KeyNotFoundError, KeyRevokedError } from '../accounts/account-errors.js';
import { ConfigError, loadConfig } from '../config/config.js';
import { InvalidIpEntryError, parseIpEntries } from '../ip/ip-range.js';
import { sqlStores } from '../store/sql-stores.js';
import { migrate, openDatabase, type Database } from '../store/database.js';

const USAGE = `Usage: scrapegate <command>

  keys create --plan NAME [--credits N] [--name LABEL] [--allowed-ips LIST]
                          create a key; it is printed once, alone on the last line.
                          LIST: comma-separated IPv4/IPv6 addresses and CIDR ranges
                          (e.g. 203.0.113.7,10.0.0.0/8,2001:db8::/32) the key may be
                          used from; other addresses get 403. Default: anywhere
  keys list               list keys (display prefix, plan, credits, allowed IPs, state)
  keys set-ips KEY LIST   replace the addresses a key may be used from (KEY: the key
                          itself, or its display prefix); an empty LIST ('') lifts
                          the restriction. Applies from the key's next request
  keys rotate KEY [--grace SECONDS]
                          a new secret for the key, same balance and settings; the
                          old one keeps working SECONDS longer (default 0). The new
                          secret is printed once, alone on the last line
  keys revoke KEY         revoke a key (the key itself, or its display prefix)
  plans list              list the plan catalog and the credit costs
  billing verify          check that every key's credits consumed, period by period,
                          equal the costs of its charged requests in the ledger;
                          exits 1 naming each key and period that differs
  migrate                 bring the database schema up to date

The database is DATABASE_URL's (default: SQLite under ./data), as for the server.`;

class UsageError extends Error {}

function describeKey(k: KeyRecord): string {
  const state = k.revoked_at === null ? 'active' : `revoked ${k.revoked_at}`;
  const cap = k.max_concurrency === null ? 'unlimited' : String(k.max_concurrency);
  return [
    k.prefix.padEnd(12),
    k.plan.padEnd(13),
    `${k.credits_remaining}/${k.credits_total}`.padEnd(20),
    `concurrency ${cap}`.padEnd(22),
    `period ${k.period_start} .. ${k.period_end}`,
    state,
    `ips ${k.allowed_ips.length === 0 ? 'anywhere' : k.allowed_ips.join(',')}`,
    ...(k.previous_secret_expires_at ? [`previous secret until ${k.previous_secret_expires_at}`] : []),
    k.label ?? '',
  ].join('  ').trimEnd();
}

/** The CLI's names for the fields the account rules refuse. */
const FLAGS: Record<string, string> = { plan: '--plan', credits: '--credits', allowed_ips: '--allowed-ips', grace_seconds: '--grace' };

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,13}$/.test(value)) throw new UsageError(`${flag} must be a whole number`);
  return Number(value);
}

/** The account operations the admin API uses, over the configured database. */
function withAccounts<T>(url: string, catalog: Catalog, fn: (parts: ReturnType<typeof accountParts>) => Promise<T>): Promise<T> {
  return withDatabase(url, (db) => {
    const stores = sqlStores(db);
    return fn(accountParts({ keys: stores.accountKeys, history: stores.history }, catalog));
  });
}

async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = openDatabase(url);
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      credits: { type: 'string' },
      name: { type: 'string' },
      'allowed-ips': { type: 'string' },
      grace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command, arg] = positionals;
  if (values.help || !group) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig(process.env);
  const catalog = loadCatalog(config.plansConfigPath);

  if (group === 'migrate') {
    await withDatabase(config.databaseUrl, async () => console.log('The database schema is up to date.'));
  } else if (group === 'plans' && command === 'list') {
    for (const p of catalog.plans) {
      console.log(`${p.name.padEnd(14)} ${String(p.credits).padStart(10)} credits/month  concurrency ${p.maxConcurrency ?? 'unlimited'}`);
    }
    console.log('\ncredit cost per request    datacenter  residential');
    for (const [kind, row] of Object.entries(catalog.costs)) {
      console.log(`${kind.padEnd(26)} ${String(row.datacenter).padStart(10)}  ${String(row.residential).padStart(11)}`);
    }
  } else if (group === 'billing' && command === 'verify') {
    const found = await withDatabase(config.databaseUrl, (db) => sqlStores(db).books.discrepancies());
    for (const d of found) {
      const period = `${new Date(d.periodStart).toISOString()} .. ${new Date(d.periodEnd).toISOString()}`;
      console.log(`${d.prefix}  key #${d.apiKeyId}  period ${period}: ${d.consumed} credits consumed, ${d.ledger} in the ledger (${d.consumed - d.ledger > 0 ? '+' : ''}${d.consumed - d.ledger})`);
    }
    if (found.length > 0) {
      console.log(`${found.length} ${found.length === 1 ? 'period differs' : 'periods differ'} from the ledger.`);
      process.exitCode = 1;
    } else {
      console.log('The books balance: every period of every key matches its ledger.');
    }
  } else if (group === 'keys' && command === 'create') {
    if (!values.plan) throw new UsageError(`--plan must be one of: ${catalog.plans.map((p) => p.name).join(', ')}`);
    const credits = wholeNumber('--credits', values.credits);
    const allowedIps = parseIpEntries(values['allowed-ips'] ?? '');
    const created = await withAccounts(config.databaseUrl, catalog, ({ admin }) =>
      admin.create('cli', { plan: values.plan!, credits, label: values.name, allowed_ips: allowedIps }),
    );
    console.log(describeKey(created.record));
    console.log('The key is shown only now; store it safely:');
    console.log(created.key);
  } else if (group === 'keys' && command === 'list') {
    const keys = await withAccounts(config.databaseUrl, catalog, async ({ admin }) => {
      const all: KeyRecord[] = [];
      for (let cursor: string | undefined; ; ) {
        const page = await admin.list({ limit: 500, cursor });
        all.push(...page.items);
        if (page.next_cursor === null) return all.reverse();
        cursor = page.next_cursor;
      }
    });
    if (keys.length === 0) console.log('No keys. Create one with: npx scrapegate keys create --plan free');
    for (const k of keys) console.log(describeKey(k));
  } else if (group === 'keys' && command === 'set-ips') {
    const [, , , list] = positionals;
    if (!arg || list === undefined) throw new UsageError("keys set-ips needs the key (or its display prefix) and a list of addresses ('' for anywhere)");
    const entries = parseIpEntries(list);
    const updated = await withAccounts(config.databaseUrl, catalog, async ({ admin }) => admin.update('cli', await admin.resolve(arg), { allowed_ips: entries }));
    console.log(describeKey(updated));
  } else if (group === 'keys' && command === 'rotate') {
    if (!arg) throw new UsageError('keys rotate needs the key or its display prefix');
    const grace = wholeNumber('--grace', values.grace) ?? 0;
    const rotated = await withAccounts(config.databaseUrl, catalog, async ({ admin }) => admin.rotate('cli', await admin.resolve(arg), grace));
    console.log(describeKey(rotated.record));
    console.log('The new secret is shown only now; store it safely:');
    console.log(rotated.key);
  } else if (group === 'keys' && command === 'revoke') {
    if (!arg) throw new UsageError('keys revoke needs the key or its display prefix');
    const revoked = await withAccounts(config.databaseUrl, catalog, async ({ admin }) => admin.revoke('cli', await admin.resolve(arg)));
    console.log(`Revoked ${revoked.prefix}`);
  } else {
    throw new UsageError(`Unknown command: ${positionals.join(' ')}\n\n${USAGE}`);
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof KeyNotFoundError) err = new UsageError('No single key matches that key or prefix.');
  if (err instanceof KeyRevokedError) err = new UsageError(err.message);
  if (err instanceof InvalidAccountChangeError) {
    err = new UsageError(err.issues.map((i) => `${FLAGS[i.field[0]] ?? i.field[0]}: ${i.msg}`).join('\n'));
  }
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof InvalidIpEntryError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error((err as Error).message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
