import { z } from 'zod';

/**
 * Firecrawl's browser actions, as the engine runs them once validated (action-limits.ts): every
 * default applied. The same schema reads them back from a stored batch's options.
 */
const selector = z.string().min(1).max(2048);
/** At most this many actions in one request, as Firecrawl allows (the Firecrawl document's `actions.maxItems` says the same). */
export const MAX_ACTIONS = 50;
export const PDF_FORMATS = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'] as const;

export const browserActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('wait'), milliseconds: z.number().int().min(1).max(60_000).optional(), selector: selector.optional() }),
  z.strictObject({ type: z.literal('click'), selector, all: z.boolean().default(false) }),
  z.strictObject({ type: z.literal('write'), text: z.string().max(100_000) }),
  z.strictObject({ type: z.literal('press'), key: z.string().min(1).max(32) }),
  z.strictObject({ type: z.literal('scroll'), direction: z.enum(['up', 'down']).default('down'), selector: selector.optional() }),
  z.strictObject({
    type: z.literal('screenshot'),
    fullPage: z.boolean().default(false),
    quality: z.number().int().min(1).max(100).optional(),
    viewport: z.strictObject({ width: z.number().int().min(320).max(3840), height: z.number().int().min(240).max(2160) }).optional(),
  }),
  z.strictObject({ type: z.literal('scrape') }),
  z.strictObject({ type: z.literal('executeJavascript'), script: z.string().min(1).max(100_000) }),
  z.strictObject({ type: z.literal('pdf'), format: z.enum(PDF_FORMATS).default('Letter'), landscape: z.boolean().default(false), scale: z.number().min(0.1).max(2).default(1) }),
]);

export const browserActionsSchema = z.array(browserActionSchema).max(MAX_ACTIONS);

export type BrowserAction = z.infer<typeof browserActionSchema>;
export type ActionOf<T extends BrowserAction['type']> = Extract<BrowserAction, { type: T }>;

/** What the actions produced, in Firecrawl's shape (`data.actions`). */
export interface ActionResults {
  /** `data:` URIs, in the order taken. */
  screenshots: string[];
  scrapes: Array<{ url: string; html: string }>;
  javascriptReturns: Array<{ type: string; value: unknown }>;
  /** `data:application/pdf;base64,…` URIs. */
  pdfs: string[];
}
