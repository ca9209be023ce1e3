import type { Response } from 'express';
import type { FetchedPage } from '../../engines/fetcher.js';
import { v2Headers } from '../../scrape/page-answers.js';

/** The page's metadata as v2 answers carry it: its status, and every header the target sent, prefixed. */
export function appendV2Headers(res: Response, page: FetchedPage): void {
  for (const [name, value] of v2Headers(page)) {
    try {
      res.append(name, value);
    } catch {
      // A value Node refuses to send (a control character) is dropped rather than failing the answer.
    }
  }
}
