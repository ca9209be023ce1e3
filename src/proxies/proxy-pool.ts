import type { ProxyType } from '../config/catalog.js';
import { ProxyUnavailableError } from '../errors/engine-errors.js';
import { EgressRoute } from './egress-route.js';
import { type ProxyEndpoint } from './proxy-endpoint.js';
import { ISO_COUNTRIES } from './iso-countries.js';
import { ANY_COUNTRY, fillTemplate, type ProxyCatalog, type ProxyTemplate } from './proxy-config.js';
import { ProxyHealth } from './proxy-health.js';
import type { ProxyProvider } from './proxy-provider.js';

const ALL_COUNTRIES = [...ISO_COUNTRIES];

/**
 * The proxies of PROXY_CONFIG. A country listed under the type uses its own list; any other
 * country uses the type's `*` templates. Without a country, a random listed country is taken
 * (or, for a type with only `*`, a random ISO country). Requests rotate through a list round-robin.
 */
export class ProxyPool implements ProxyProvider {
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly catalog: ProxyCatalog,
    readonly health = new ProxyHealth(),
    private readonly random: () => number = Math.random,
  ) {}

  route(type: ProxyType, requested: string | undefined): EgressRoute {
    const byCountry = this.catalog.get(type);
    if (!byCountry) {
      throw new ProxyUnavailableError('proxy_type', `no ${type} proxies are configured on this server; available: ${[...this.catalog.keys()].join(', ')}`);
    }
    const listed = [...byCountry.keys()].filter((c) => c !== ANY_COUNTRY);
    const country = requested?.toUpperCase() ?? this.randomCountry(listed);
    const templates = byCountry.get(country) ?? byCountry.get(ANY_COUNTRY);
    if (!templates || !ISO_COUNTRIES.has(country)) {
      const any = byCountry.has(ANY_COUNTRY) ? ' and any other ISO 3166-1 country' : '';
      throw new ProxyUnavailableError('proxy_country', `no ${type} proxy for country ${requested} on this server; available: ${listed.join(', ') || 'none'}${any}`);
    }
    return EgressRoute.through(this.inTurn(`${type}/${country}`, templates).map((t) => endpoint(t, country)), this.health, type, country);
  }

  private randomCountry(listed: string[]): string {
    const from = listed.length > 0 ? listed : ALL_COUNTRIES;
    return from[Math.floor(this.random() * from.length)];
  }

  /** The list starting one further along than last time for this choice. */
  private inTurn(key: string, templates: ProxyTemplate[]): ProxyTemplate[] {
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, (turn + 1) % templates.length);
    return [...templates.slice(turn), ...templates.slice(0, turn)];
  }
}

function endpoint(t: ProxyTemplate, country: string): ProxyEndpoint {
  const id = t.template.includes('{country}') ? `${t.id}:${country.toLowerCase()}` : t.id;
  return { id, url: fillTemplate(t, country), label: `${t.label} (${id})`, type: t.type, country };
}
