import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The host's turn is not free now: the item goes back to the queue, its attempt not counted, to
 * come back in `retryInMs` (retry-policy.ts laterMs), so that no worker sits waiting for a host.
 */
export class HostBusyError extends Error {
  readonly outcome = 'busy';

  constructor(host: string, readonly retryInMs: number) {
    super(`${host} is being crawled as fast as its politeness allows`);
    this.name = 'HostBusyError';
  }
}

/** One request's hold on its host: released once its answer is read. */
export interface HostTurn {
  release(): Promise<void>;
}

export interface HostRule {
  /** Requests to the host at once, over every instance. */
  cap: number;
  /** Between the end of one request to the host and the start of the next (with a cap of 1: `delay`, Crawl-delay). */
  spacingMs: number;
  /** A holder that never released (its instance died) lets go after this. */
  leaseMs: number;
}

// Redis's own clock, so that instances whose clocks differ still space a host's requests.
const NOW = "local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000);";
/** 0: taken; >0: wait this many ms (spacing, a back-off); -1: the cap is full. */
const ACQUIRE = `${NOW}
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
local nextAt = tonumber(redis.call('get', KEYS[2]) or '0')
if nextAt > now then return nextAt - now end
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then return -1 end
redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('pexpire', KEYS[1], ARGV[2])
return 0`;
const RELEASE = `${NOW}
redis.call('zrem', KEYS[1], ARGV[1])
local spacing = tonumber(ARGV[2])
if spacing > 0 then
  local nextAt = tonumber(redis.call('get', KEYS[2]) or '0')
  if now + spacing > nextAt then redis.call('set', KEYS[2], now + spacing, 'PX', spacing) end
end
return 0`;
const BACK_OFF = `${NOW}
local until_ = now + tonumber(ARGV[1])
local nextAt = tonumber(redis.call('get', KEYS[1]) or '0')
if until_ > nextAt then redis.call('set', KEYS[1], until_, 'PX', ARGV[1]) end
return 0`;

/** A full host is asked again this often (with jitter), while the wait stays within INLINE_WAIT_MS. */
const POLL_MS = 30;
/**
 * A worker waits for its host this long at most (a turn handed back a moment late, a spacing
 * about to end); past it the item is requeued: a worker waiting on a polite host serves no one.
 */
const INLINE_WAIT_MS = 100;
/** A full host (its holders' ends unknown) is tried again this long after, with jitter. */
const FULL_RETRY_MS = 250;

/**
 * Each host's politeness, held in Redis so that every instance keeps it together: at most `cap`
 * requests at once (CRAWL_HOST_CONCURRENCY), or with a delay one at a time that far apart, and
 * no request before a back-off the host asked for (429/503, Retry-After) has passed. A holder
 * that dies lets go when its lease lapses. A turn not free within a moment is not waited for:
 * HostBusyError says when to come back, and the item is requeued for then.
 */
export class HostGate {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  async enter(host: string, rule: HostRule, cancelled?: AbortSignal): Promise<HostTurn> {
    const holders = `${this.prefix}:host:${host}:holders`;
    const nextAt = `${this.prefix}:host:${host}:next`;
    const token = randomUUID();
    const giveUp = Date.now() + INLINE_WAIT_MS;
    for (;;) {
      const wait = Number(await this.redis.eval(ACQUIRE, 2, holders, nextAt, rule.cap, rule.leaseMs, token));
      if (wait === 0) {
        return { release: async () => void (await this.redis.eval(RELEASE, 2, holders, nextAt, token, rule.spacingMs)) };
      }
      const pause = wait > 0 ? wait : POLL_MS + Math.random() * POLL_MS;
      if (Date.now() + pause > giveUp || cancelled?.aborted) {
        throw new HostBusyError(host, wait > 0 ? wait : Math.round(FULL_RETRY_MS + Math.random() * FULL_RETRY_MS));
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** The host asked to be left alone for `ms` (a 429 or 503 with Retry-After). */
  async backOff(host: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    await this.redis.eval(BACK_OFF, 1, `${this.prefix}:host:${host}:next`, Math.round(ms));
  }
}
