import { parseIpAddress } from '../../ip/ip-address.js';

/**
 * scrapegate's own listeners and the services it talks to. Ports on this machine: the API (and
 * its metrics), the browser gateways, chromedriver and Chromium's DevTools, registered before
 * they listen. Endpoints elsewhere: a Selenium Grid, the database. None is ever a target,
 * whatever ALLOW_PRIVATE_TARGETS says: a rendered page that reached one could drive a browser,
 * spend the operator's credits or talk to the database.
 */
export class OwnPorts {
  private readonly ports = new Map<number, number>();
  /** `address|port` of services on other machines (their addresses as resolved at start). */
  private readonly remote = new Set<string>();

  /** Counted, so that a port registered twice (a session and its driver) stays until both let go. */
  add(port: number): void {
    this.ports.set(port, (this.ports.get(port) ?? 0) + 1);
  }

  delete(port: number): void {
    const n = (this.ports.get(port) ?? 0) - 1;
    if (n > 0) this.ports.set(port, n);
    else this.ports.delete(port);
  }

  has(port: number): boolean {
    return this.ports.has(port);
  }

  /** A service at `address:port` on another machine (an address of this machine: use `add`). */
  addRemote(address: string, port: number): void {
    this.remote.add(`${parseIpAddress(address)?.toString() ?? address}|${port}`);
  }

  hasRemote(address: string, port: number): boolean {
    return this.remote.has(`${address}|${port}`);
  }
}
