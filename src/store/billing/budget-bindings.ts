import type { BrowserFailureBudget } from '../../billing/billing-store.js';

/**
 * A browser debit's bindings for its budget window: the window opens anew when the last began
 * at or before `expired`; `from` and `allowance` say when a failure count still allows the
 * request (allowance 0: the budget is off, so the window always counts as open anew).
 */
export function budgetBindings(at: number, { allowance, windowMs }: BrowserFailureBudget): { expired: number; from: number; allowance: number } {
  return { expired: at - windowMs, from: allowance > 0 ? at - windowMs : Number.MAX_SAFE_INTEGER, allowance };
}
