import type { ProxyType } from '../../config/catalog.js';
import { readConfigFile } from '../../config/config-file.js';
import { ConfigError } from '../../config/config.js';
import { ISO_COUNTRIES } from './iso-countries.js';

/** Any country, through a template: `{country}` in the URL's user or password is filled in per request. */
export const ANY_COUNTRY = '*';
export const COUNTRY = '{country}';
/** A gateway's sticky-session value: a session's stable hash, or a fresh random one per session-less request. */
export const SESSION = '{session}';
const PLACEHOLDERS = [COUNTRY, SESSION];
const TYPES: readonly ProxyType[] = ['datacenter', 'residential'];

/** One configured proxy URL (possibly a template); `label` is what may be logged. */
export interface ProxyTemplate {
  /** `datacenter/US/0`: stable, and free of credentials. */
  id: string;
  type: ProxyType;
  template: string;
  /** `http://host:port`: the URL without its credentials. */
  label: string;
}

/** type → country (upper case, or `*`) → proxies. */
export type ProxyCatalog = Map<ProxyType, Map<string, ProxyTemplate[]>>;

/** A bad PROXY_CONFIG stops the server at start, like a bad environment variable. */
export class ProxyConfigError extends ConfigError {}

/** `{country}` and `{session}` may stand only in the user or password: a provider's gateway takes them there. */
function checkTemplate(raw: string, where: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new ProxyConfigError(`${where}: expected a proxy URL string`);
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(raw)?.[1] ?? '';
  for (const placeholder of PLACEHOLDERS) {
    if (raw.split(placeholder).length !== userinfo.split(placeholder).length) {
      throw new ProxyConfigError(`${where}: ${placeholder} may appear only in the proxy URL's user name or password`);
    }
  }
  let url: URL;
  try {
    url = new URL(raw.replaceAll(COUNTRY, 'us').replaceAll(SESSION, '0123456789abcdef'));
  } catch {
    throw new ProxyConfigError(`${where}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProxyConfigError(`${where}: only http:// and https:// proxies are supported, not ${url.protocol}`);
  if (!url.hostname) throw new ProxyConfigError(`${where}: the proxy URL has no host`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) throw new ProxyConfigError(`${where}: a proxy URL has no path, query or fragment`);
  return `${url.protocol}//${url.host}`;
}

/** Validates a parsed PROXY_CONFIG document; every message names the entry at fault (never a credential). */
export function parseProxyCatalog(doc: unknown): ProxyCatalog {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ProxyConfigError('expected an object keyed by proxy type (datacenter, residential)');
  const catalog: ProxyCatalog = new Map();
  for (const [type, countries] of Object.entries(doc)) {
    if (!TYPES.includes(type as ProxyType)) throw new ProxyConfigError(`${type}: unknown proxy type (use ${TYPES.join(' or ')})`);
    if (typeof countries !== 'object' || countries === null || Array.isArray(countries)) {
      throw new ProxyConfigError(`${type}: expected an object keyed by ISO country code or "*"`);
    }
    const byCountry = new Map<string, ProxyTemplate[]>();
    for (const [key, urls] of Object.entries(countries as Record<string, unknown>)) {
      const country = key === ANY_COUNTRY ? key : key.toUpperCase();
      const where = `${type}.${key}`;
      if (country !== ANY_COUNTRY && !ISO_COUNTRIES.has(country)) throw new ProxyConfigError(`${where}: not an ISO 3166-1 alpha-2 country code (or "*")`);
      if (byCountry.has(country)) throw new ProxyConfigError(`${where}: the country is listed twice`);
      if (!Array.isArray(urls) || urls.length === 0) throw new ProxyConfigError(`${where}: expected a non-empty array of proxy URLs`);
      byCountry.set(
        country,
        urls.map((raw: unknown, i) => ({
          id: `${type}/${country}/${i}`,
          type: type as ProxyType,
          template: raw as string,
          label: checkTemplate(raw as string, `${where}[${i}]`),
        })),
      );
    }
    if (byCountry.size > 0) catalog.set(type as ProxyType, byCountry);
  }
  return catalog;
}

/** Reads PROXY_CONFIG; undefined path: no upstream proxies, traffic leaves directly. */
export function loadProxyCatalog(path: string | undefined): ProxyCatalog | undefined {
  return path ? readConfigFile('PROXY_CONFIG', path, parseProxyCatalog) : undefined;
}

/** The template with the country (lower case, as providers take it) and the session value filled in, as a URL. */
export function fillTemplate(template: ProxyTemplate, country: string, session: string): URL {
  return new URL(
    template.template.replaceAll(COUNTRY, encodeURIComponent(country.toLowerCase())).replaceAll(SESSION, encodeURIComponent(session)),
  );
}
