import { getDomain } from 'tldts';

/**
 * The schemeful site of an origin (`https://example.co.uk` for `https://a.b.example.co.uk:8443`),
 * as Chrome keys partitioned storage by it: the registrable domain by the public suffix list, the
 * host itself for an IP address or a single label.
 */
export function siteOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return `${url.protocol}//${getDomain(url.hostname) ?? url.hostname}`;
  } catch {
    return undefined;
  }
}

/**
 * The storage keys a frame of `origin` may have written under one of `topSites` besides its own
 * first-party one (which clearing by origin covers): Chrome partitions the storage of a frame
 * embedded across sites by the top-level site (`<origin>/^0<site>`), and keys a same-site frame
 * below a cross-site one apart (`<origin>/^31`). A key that holds nothing is cleared for nothing.
 */
export function partitionedKeys(origins: Iterable<string>, topSites: Iterable<string>): string[] {
  const tops = [...topSites];
  const keys = new Set<string>();
  for (const origin of origins) {
    const site = siteOf(origin);
    if (!site) continue;
    for (const top of tops) keys.add(site === top ? `${origin}/^31` : `${origin}/^0${top}`);
  }
  return [...keys];
}
