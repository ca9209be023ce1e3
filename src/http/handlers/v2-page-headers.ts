import type { Response } from 'express';
import type { FetchedPage } from '../../engines/fetcher.js';

/** The page's metadata as v2 answers carry it: its status, and every header the target sent, prefixed. */
export function appendV2Headers(res: Response, page: FetchedPage): void {
  const headers: Array<[string, string]> = [['Svc-page-status-code', String(page.status)]];
  for (const [name, value] of page.headers) headers.push([`svc-original-header-${name.toLowerCase()}`, value]);
  for (const [name, value] of headers) {
    try {
      res.append(name, value);
    } catch {
      // A value Node refuses to send (a control character) is dropped rather than failing the answer.
    }
  }
}
