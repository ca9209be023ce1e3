import type { ProxyType } from '../../config/catalog.js';
import { ProxyUnavailableError } from '../fetch-errors.js';
import { EgressRoute } from './egress-route.js';
import { type ProxyEndpoint } from './proxy-endpoint.js';
import { ISO_COUNTRIES } from './iso-countries.js';
import { ANY_COUNTRY, COUNTRY, fillTemplate, SESSION, type ProxyCatalog, type ProxyTemplate } from './proxy-config.js';
import { ProxyHealth } from './proxy-health.js';
import type { ProxyProvider } from './proxy-provider.js';
import { SessionPins } from './session-pins.js';
import { freshGatewaySession, gatewaySession, rendezvousOrder, sessionCountry, sessionName, type StickySession } from './sticky-session.js';

const ALL_COUNTRIES = [...ISO_COUNTRIES];
/** SESSION_TTL_SECONDS' default, for pools built without the config (tests, tools). */
const DEFAULT_SESSION_TTL_MS = 300_000;

/**
 * The proxies of PROXY_CONFIG. A country listed under the type uses its own list; any other
 * country uses the type's `*` templates. Without a country, a random listed country is taken
 * (or, for a type with only `*`, a random ISO country). Requests rotate through a list round-robin.
 *
 * A sticky session instead takes its country (when it names none) and its exit by hash, so every
 * instance with this config sends it the same way; it leaves that exit only when the exit fails,
 * and then stays where it moved to (`pins`) for as long as its requests keep coming.
 */
export class ProxyPool implements ProxyProvider {
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly catalog: ProxyCatalog,
    readonly health = new ProxyHealth(),
    private readonly random: () => number = Math.random,
    readonly pins = new SessionPins(DEFAULT_SESSION_TTL_MS),
  ) {}

  route(type: ProxyType, requested: string | undefined, session?: StickySession): EgressRoute {
    const byCountry = this.catalog.get(type);
    if (!byCountry) {
      throw new ProxyUnavailableError('proxy_type', `no ${type} proxies are configured on this server; available: ${[...this.catalog.keys()].join(', ')}`);
    }
    const listed = [...byCountry.keys()].filter((c) => c !== ANY_COUNTRY);
    const drawn = listed.length > 0 ? listed : ALL_COUNTRIES;
    const country = requested?.toUpperCase() ?? (session ? sessionCountry(session, type, drawn) : drawn[Math.floor(this.random() * drawn.length)]);
    const templates = byCountry.get(country) ?? byCountry.get(ANY_COUNTRY);
    if (!templates || !ISO_COUNTRIES.has(country)) {
      const any = byCountry.has(ANY_COUNTRY) ? ' and any other ISO 3166-1 country' : '';
      throw new ProxyUnavailableError('proxy_country', `no ${type} proxy for country ${requested} on this server; available: ${listed.join(', ') || 'none'}${any}`);
    }
    if (session) return this.sticky(sessionName(session, type, country), templates, type, country);
    const value = templates.some((t) => t.template.includes(SESSION)) ? freshGatewaySession() : '';
    return EgressRoute.through(this.inTurn(`${type}/${country}`, templates).map((t) => endpoint(t, country, value)), this.health, type, country);
  }

  /**
   * Rendezvous order, led by the exit the session was moved to if it was. Cooling exits are
   * skipped by the route as for any request; wherever the request's tunnel opens, the pin follows
   * (and is dropped when that is the rendezvous exit again, which every instance finds unaided).
   */
  private sticky(name: string, templates: ProxyTemplate[], type: ProxyType, country: string): EgressRoute {
    const value = gatewaySession(name);
    const ranked = rendezvousOrder(name, templates.map((t) => endpoint(t, country, value)));
    const pinned = this.pins.touch(name);
    const order = pinned === undefined ? ranked : [...ranked.filter((p) => p.id === pinned), ...ranked.filter((p) => p.id !== pinned)];
    const first = ranked[0].id;
    return EgressRoute.through(order, this.health, type, country, (proxy) => (proxy.id === first ? this.pins.unpin(name) : this.pins.pin(name, proxy.id)));
  }

  /** The list starting one further along than last time for this choice. */
  private inTurn(key: string, templates: ProxyTemplate[]): ProxyTemplate[] {
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, (turn + 1) % templates.length);
    return [...templates.slice(turn), ...templates.slice(0, turn)];
  }
}

/**
 * The id names the configured entry and, for a `{country}` template, the country; never the
 * `{session}` value: what fails is the gateway, for every session through it, so its health and
 * a session's pin are kept per gateway and country.
 */
function endpoint(t: ProxyTemplate, country: string, session: string): ProxyEndpoint {
  const id = t.template.includes(COUNTRY) ? `${t.id}:${country.toLowerCase()}` : t.id;
  return { id, url: fillTemplate(t, country, session), label: `${t.label} (${id})`, type: t.type, country };
}
