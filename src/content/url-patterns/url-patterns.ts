/** What a crawl's link filter is given: its URLs, and the patterns as the caller wrote them. */
export interface UrlPatternsInput {
  urls: string[];
  include: string[];
  exclude: string[];
  /** Patterns are matched against the whole URL; else against its pathname. */
  onFullUrl: boolean;
}

/**
 * Which URLs the patterns keep: those matching an include pattern (any, when there are none) and
 * no exclude pattern. The patterns are the caller's: a pattern can backtrack for as long as it
 * likes, so this runs only in a worker thread that is ended past its time (html-work/).
 */
export function keptByPatterns(input: UrlPatternsInput): boolean[] {
  const include = input.include.map((p) => new RegExp(p));
  const exclude = input.exclude.map((p) => new RegExp(p));
  return input.urls.map((text) => {
    let subject = text;
    if (!input.onFullUrl) {
      try {
        subject = new URL(text).pathname;
      } catch {
        return false;
      }
    }
    if (include.length > 0 && !include.some((re) => re.test(subject))) return false;
    return !exclude.some((re) => re.test(subject));
  });
}
