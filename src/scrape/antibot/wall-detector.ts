import { readFileSync } from 'node:fs';
import { z } from 'zod';

export interface WallVerdict {
  ruleId: string;
  vendor: string;
  /** 'challenge' | 'captcha' | 'block' */
  wall: string;
}

/** What either engine knows of a page: the main document's status and headers, and its HTML. */
export interface PageEvidence {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Walls are small pages with their markers near the top; scanning further only costs time on every 200. */
export const BODY_SCAN_LIMIT = 256 * 1024;

type Leaf = { header: string; pattern?: string } | { cookie: string } | { body: string } | { title: string } | { status: number[] };
type Condition = Leaf | { all: Condition[] } | { any: Condition[] };

const regex = z.string().min(1).superRefine((source, ctx) => {
  try {
    new RegExp(source, 'i');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `invalid regex ${JSON.stringify(source)}: ${(err as Error).message}` });
  }
});
const statuses = z.array(z.number().int().min(100).max(599)).min(1);
const condition: z.ZodType<Condition> = z.lazy(() =>
  z.union(
    [
      z.strictObject({ header: z.string().regex(/^[!#$%&'*+.^_`|~0-9a-z-]+$/i), pattern: regex.optional() }),
      z.strictObject({ cookie: regex }),
      z.strictObject({ body: regex }),
      z.strictObject({ title: regex }),
      z.strictObject({ status: statuses }),
      z.strictObject({ all: z.array(condition).min(1) }),
      z.strictObject({ any: z.array(condition).min(1) }),
    ],
    { error: 'not a condition: expected one of header (with an optional pattern), cookie, body, title, status, all, any' },
  ),
);
const ruleSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'ids are kebab-case'),
    vendor: z.string().min(1),
    wall: z.enum(['challenge', 'captcha', 'block']),
    note: z.string().optional(),
    status: statuses.optional(),
    all: z.array(condition).min(1).optional(),
    any: z.array(condition).min(1).optional(),
    none: z.array(condition).min(1).optional(),
  })
  .refine((r) => r.all !== undefined || r.any !== undefined, 'a rule needs an "all" or an "any" list');

/** One page as the compiled conditions see it; title and cookies are only worked out if a rule asks. */
interface Scan {
  status: number;
  headers: Map<string, string[]>;
  body: string;
  title(): string;
  cookies(): string[];
}
type Test = (scan: Scan) => boolean;

// Cheap conditions first, so that most rules fail on the status or a header before any body scan.
function cost(c: Condition): number {
  if ('all' in c || 'any' in c) return Math.max(...('all' in c ? c.all : c.any).map(cost));
  return 'status' in c ? 0 : 'header' in c ? 1 : 'cookie' in c ? 2 : 'title' in c ? 3 : 4;
}

function compileAll(list: Condition[]): Test[] {
  return [...list].sort((a, b) => cost(a) - cost(b)).map(compile);
}

function compile(c: Condition): Test {
  if ('all' in c || 'any' in c) {
    const parts = compileAll('all' in c ? c.all : c.any);
    return 'all' in c ? (s) => parts.every((t) => t(s)) : (s) => parts.some((t) => t(s));
  }
  if ('status' in c) return (s) => c.status.includes(s.status);
  if ('header' in c) {
    const name = c.header.toLowerCase();
    const re = c.pattern === undefined ? undefined : new RegExp(c.pattern, 'i');
    return (s) => s.headers.get(name)?.some((v) => re === undefined || re.test(v)) ?? false;
  }
  const re = new RegExp('cookie' in c ? `^(?:${c.cookie})$` : 'title' in c ? c.title : c.body, 'i');
  if ('cookie' in c) return (s) => s.cookies().some((n) => re.test(n));
  return 'title' in c ? (s) => re.test(s.title()) : (s) => re.test(s.body);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

// A raw body and a rendered DOM escape titles differently; decoding makes both read the same.
function extractTitle(body: string): string {
  return (/<title\b[^>]*>([^<]*)/i.exec(body)?.[1] ?? '')
    .replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/gi, (all, dec?: string, hex?: string, name?: string) => {
      const code = dec || hex ? parseInt(dec ?? hex ?? '', dec ? 10 : 16) : undefined;
      return code === undefined ? (ENTITIES[(name ?? '').toLowerCase()] ?? all) : code <= 0x10ffff ? String.fromCodePoint(code) : all;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

// Chromium's DevTools protocol joins repeated headers with newlines, so one value may hold several cookies.
function cookieNames(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split('\n')).map((c) => c.split('=', 1)[0].trim());
}

/**
 * Recognises anti-bot block and challenge pages from the rules in antibot-rules.json. A rule
 * matches when the page's status is in its "status" list (if any), every "all" condition holds,
 * at least one "any" condition holds and no "none" condition does. Rules are tried in order and
 * the first match wins, so vendor rules come before the generic captcha walls.
 */
export class WallDetector {
  private static bundled: WallDetector | undefined;

  private constructor(private readonly rules: ReadonlyArray<{ test: Test; verdict: WallVerdict }>) {}

  static fromRules(rules: unknown): WallDetector {
    if (!Array.isArray(rules)) throw new Error('antibot rules: expected an array of rules');
    const seen = new Set<string>();
    const compiled = rules.map((raw: unknown, i) => {
      const label = typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'string' ? `"${raw.id}"` : `#${i}`;
      const parsed = ruleSchema.safeParse(raw);
      if (!parsed.success) {
        throw new Error(`antibot rule ${label}: ${parsed.error.issues.map((x) => `${x.path.join('.') || '(rule)'}: ${x.message}`).join('; ')}`);
      }
      const r = parsed.data;
      if (seen.has(r.id)) throw new Error(`antibot rule ${label}: duplicate id`);
      seen.add(r.id);
      const must = compile({ all: [...(r.status ? [{ status: r.status }] : []), ...(r.all ?? []), ...(r.any ? [{ any: r.any }] : [])] });
      const veto = r.none ? compile({ any: r.none }) : () => false;
      return { test: (s: Scan) => must(s) && !veto(s), verdict: Object.freeze({ ruleId: r.id, vendor: r.vendor, wall: r.wall }) };
    });
    return new WallDetector(compiled);
  }

  static default(): WallDetector {
    WallDetector.bundled ??= WallDetector.fromRules(JSON.parse(readFileSync(new URL('./antibot-rules.json', import.meta.url), 'utf8')));
    return WallDetector.bundled;
  }

  detect(page: PageEvidence): WallVerdict | undefined {
    const headers = new Map<string, string[]>();
    for (const [name, value] of page.headers) {
      const key = name.toLowerCase();
      headers.set(key, headers.get(key)?.concat(value) ?? [value]);
    }
    const body = page.body.length > BODY_SCAN_LIMIT ? page.body.slice(0, BODY_SCAN_LIMIT) : page.body;
    let titleText: string | undefined;
    let cookieList: string[] | undefined;
    const title = (): string => (titleText ??= extractTitle(body));
    const cookies = (): string[] => (cookieList ??= cookieNames(headers.get('set-cookie')));
    const scan: Scan = { status: page.status, headers, body, title, cookies };
    return this.rules.find((r) => r.test(scan))?.verdict;
  }
}
