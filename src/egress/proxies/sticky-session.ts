import { createHash, randomBytes } from 'node:crypto';
import type { ProxyType } from '../../config/catalog.js';

/**
 * A caller's sticky session: its requests with the same type and country leave through one exit.
 * `key` identifies the API key stably and publicly (its database id), never its secret: every
 * value derived here may reach a proxy provider or a log.
 */
export interface StickySession {
  key: string;
  id: number;
}

/** One session at one choice of type and country: what pins and exit choices are keyed by. */
export type SessionName = string;

/** JSON of the parts, so no key's characters can make two different sessions read alike. */
export function sessionName(session: StickySession, type: ProxyType, country: string): SessionName {
  return JSON.stringify([session.key, session.id, type, country]);
}

/** 48 bits of sha256: an integer every instance computes alike, well spread, and exact in a double. */
function weight(text: string): number {
  return createHash('sha256').update(text).digest().readUIntBE(0, 6);
}

/**
 * The country of a session that named none: drawn by its hash instead of at random, so every
 * instance sends the session to the same country (and so to the same exit).
 */
export function sessionCountry(session: StickySession, type: ProxyType, countries: readonly string[]): string {
  return countries[weight(`country\n${JSON.stringify([session.key, session.id, type])}`) % countries.length];
}

/**
 * Rendezvous (highest-random-weight) order of the exits for a session: each exit's rank depends
 * only on the session and the exit's own id, so instances with the same config agree without
 * talking, sessions spread evenly, and an exit added at the end of a list takes its fair share
 * from every other exit while the rest of the sessions stay where they were.
 */
export function rendezvousOrder<T extends { id: string }>(name: SessionName, exits: readonly T[]): T[] {
  const ranked = exits.map((exit) => ({ exit, weight: weight(`exit\n${name}\n${exit.id}`) }));
  ranked.sort((a, b) => b.weight - a.weight || (a.exit.id < b.exit.id ? -1 : a.exit.id > b.exit.id ? 1 : 0));
  return ranked.map((r) => r.exit);
}

/**
 * The `{session}` value a provider's gateway pins its exit by: the same on every instance for one
 * session, and a one-way hash of it, so the provider learns no more than that requests belong together.
 */
export function gatewaySession(name: SessionName): string {
  return createHash('sha256').update(`gateway\n${name}`).digest('hex').slice(0, 16);
}

/** A session-less request still sticks to one gateway exit for all its traffic, but a new one each time. */
export function freshGatewaySession(): string {
  return randomBytes(8).toString('hex');
}
