import { Redis, type RedisOptions } from 'ioredis';

/** Where the job engine's Redis is: a deployment's (REDIS_URL) or the private server's socket. */
export type RedisEndpoint = { url: string } | { socketPath: string };

/**
 * A connection for one purpose. BullMQ's workers block on Redis, so a command must never be
 * failed for its retries (`maxRetriesPerRequest: null`); the dispatcher's side gives up after a
 * few reconnections instead, and its next pass tries again (the jobs are durable in the database).
 */
export function openRedis(endpoint: RedisEndpoint, purpose: 'worker' | 'client', name: string): Redis {
  const options: RedisOptions = {
    connectionName: `scrapegate-${name}`,
    maxRetriesPerRequest: purpose === 'worker' ? null : 2,
    // Reconnects forever, at most a second apart: a restarted Redis is met again.
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    lazyConnect: false,
  };
  return 'url' in endpoint ? new Redis(endpoint.url, options) : new Redis({ ...options, path: endpoint.socketPath });
}

/** The endpoint as an operator reads it in a log (a URL's password never shown). */
export function describeEndpoint(endpoint: RedisEndpoint): string {
  if ('socketPath' in endpoint) return `unix:${endpoint.socketPath}`;
  const url = new URL(endpoint.url);
  if (url.password) url.password = '***';
  return url.toString();
}
