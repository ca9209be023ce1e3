import dns from 'node:dns';
import type { AddressPolicy } from './address-policy.js';
import type { OwnPorts } from './own-ports.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'mysql:': 3306 };

/**
 * The services scrapegate itself talks to (a Selenium Grid, the MySQL database) are never
 * targets, even with private targets allowed: a page that reached the Grid could drive every
 * browser on it. Their names are resolved once, at start; a service on this machine protects its
 * port on every local address, one elsewhere its exact addresses and port.
 */
export async function protectServices(urls: Array<string | undefined>, policy: AddressPolicy, ownPorts: OwnPorts): Promise<void> {
  for (const text of urls) {
    if (!text) continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      continue;
    }
    const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
    if (!port || !url.hostname) continue;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const found = await dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => []);
    for (const { address } of found) {
      if (policy.isLocal(address)) ownPorts.add(port);
      else ownPorts.addRemote(address, port);
    }
  }
}
