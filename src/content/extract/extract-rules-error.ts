/** One thing wrong with a caller's extract_rules; `path` leads from extract_rules to the offending part ([] for the whole value). */
export interface ExtractRulesIssue {
  path: Array<string | number>;
  msg: string;
  type: string;
}

/**
 * The caller's extract_rules cannot be applied: found while parsing them, or (too many results,
 * too much text) while applying them to the page. Not HTTP: the edge turns the issues into the
 * 422's `detail`, each located under ["query", "extract_rules", ...path].
 */
export class ExtractRulesError extends Error {
  readonly outcome = 'invalid_value';

  constructor(readonly issues: ExtractRulesIssue[]) {
    super(issues.map((i) => `extract_rules${i.path.map((p) => `[${JSON.stringify(p)}]`).join('')}: ${i.msg}`).join('; '));
    this.name = 'ExtractRulesError';
  }

  static of(path: Array<string | number>, msg: string, type: string): ExtractRulesError {
    return new ExtractRulesError([{ path, msg, type }]);
  }
}
