import type { Knex } from 'knex';
import type { JobStatus } from '../job-ports.js';

/**
 * What a crawl keeps in the database beside its job (store/jobs/crawl-store-sql.ts): its rules,
 * and its frontier, every URL it met once by its key's digest, unique per crawl, so that a page
 * is fetched at most once per crawl over every instance. A URL to crawl is also a job item.
 * Its rows go when its job is pruned, in the same transaction (store/jobs/job-records-sql.ts).
 */

/** A URL found, to be crawled (or refused by robots.txt). */
export interface FoundUrl {
  url: string;
  /** The digest of its normalised key (url-key.ts). */
  digest: string;
  /** Link hops from the start page; sitemap URLs are 0. */
  depth: number;
  /** The page it was found on; undefined for the start and sitemap URLs. */
  foundOn: string | undefined;
}

/** A crawl's page as its item runs: where it sits in the crawl, and the crawl's rules. */
export interface CrawlPage {
  jobId: string;
  idx: number;
  url: string;
  depth: number;
  foundOn: string | undefined;
  /** The crawl's rules as stored (crawl-rules.ts decodes them). */
  rules: string;
  status: JobStatus;
}

export interface CrawlStore {
  /** In the transaction that creates the job: its rules, and its start URL as its first item's page. */
  seed(trx: Knex.Transaction, jobId: string, rules: string, start: FoundUrl): Promise<void>;
  /** The crawl page a job item (by its ledger request id) is; undefined for a batch's item. */
  pageOf(requestId: string): Promise<CrawlPage | undefined>;
  /**
   * URLs the crawl has not met yet become its items (queued, numbered after the last), up to
   * `limit` items in all; those robots.txt refuses are kept as blocked, never items. Repeating a
   * call changes nothing. Returns how many items were added.
   */
  discover(jobId: string, found: FoundUrl[], blocked: FoundUrl[], limit: number, now: number): Promise<number>;
  /**
   * A redirect's target, met by the page `target.foundOn` (which redirected to it): its key joins
   * the frontier, as neither an item nor blocked, so that no link to it becomes an item. True when
   * the key is this page's (new, or claimed by an earlier attempt of the same page); false when
   * the crawl had met it otherwise.
   */
  claim(jobId: string, target: FoundUrl, now: number): Promise<boolean>;
  /** The URLs robots.txt refused, in the order met (at most `max`). */
  robotsBlocked(jobId: string, max: number): Promise<string[]>;
}
