import { readConfigFile } from './config-file.js';
import { z } from 'zod';

export type EngineKind = 'plain' | 'browser-source' | 'browser';
export type ProxyType = 'datacenter' | 'residential';

export interface Plan {
  name: string;
  credits: number;
  /** null: no concurrency cap. */
  maxConcurrency: number | null;
}

export type CostTable = Record<EngineKind, Record<ProxyType, number>>;

export interface Catalog {
  plans: Plan[];
  costs: CostTable;
}

export const DEFAULT_CATALOG: Catalog = {
  plans: [
    { name: 'free', credits: 10_000, maxConcurrency: 1 },
    { name: 'enthusiast', credits: 100_000, maxConcurrency: null },
    { name: 'startup', credits: 500_000, maxConcurrency: null },
    { name: 'business', credits: 3_000_000, maxConcurrency: null },
    { name: 'business-pro', credits: 8_000_000, maxConcurrency: null },
  ],
  costs: {
    plain: { datacenter: 1, residential: 25 },
    'browser-source': { datacenter: 2, residential: 50 },
    browser: { datacenter: 10, residential: 125 },
  },
};

const credits = z.number().int().min(0);
const costRow = z.object({ datacenter: credits, residential: credits }).partial();
const fileSchema = z
  .object({
    plans: z.array(
      z.object({
        name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
        credits: credits,
        maxConcurrency: z.number().int().positive().nullable().default(null),
      }),
    ),
    costs: z.object({ plain: costRow, 'browser-source': costRow, browser: costRow }).partial(),
  })
  .partial()
  .strict();

/**
 * The plan catalog and cost table: the defaults, with whatever a JSON file names replacing them.
 * Plans in the file replace the default list whole, so an operator can also remove a plan.
 */
export function loadCatalog(path: string | undefined): Catalog {
  return path ? readConfigFile('PLANS_CONFIG', path, parseCatalog) : DEFAULT_CATALOG;
}

/** A PLANS_CONFIG document over the defaults; throws naming each entry at fault. */
export function parseCatalog(raw: unknown): Catalog {
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const file = parsed.data;
  const d = DEFAULT_CATALOG.costs;
  const c = file.costs ?? {};
  return {
    plans: file.plans ?? DEFAULT_CATALOG.plans,
    costs: {
      plain: { ...d.plain, ...c.plain },
      'browser-source': { ...d['browser-source'], ...c['browser-source'] },
      browser: { ...d.browser, ...c.browser },
    },
  };
}

export function findPlan(catalog: Catalog, name: string): Plan | undefined {
  return catalog.plans.find((p) => p.name === name);
}
