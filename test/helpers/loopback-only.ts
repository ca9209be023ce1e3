import dns from 'node:dns';
import net from 'node:net';

/**
 * Whether a test process may connect to `host`: this machine only, by a loopback spelling
 * (127.0.0.0/8, ::1, their IPv4-mapped forms, `localhost`) or the unspecified address (which
 * connects to this machine). Every target, proxy, database and Grid a test starts is there;
 * anything else is an address a broken target policy would be letting through.
 */
export function loopbackDestination(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.') || bare === '0.0.0.0';
  if (!net.isIPv6(bare)) return false;
  const mapped = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return loopbackDestination(mapped[1]);
  return ['::1', '0:0:0:0:0:0:0:1', '::', '0:0:0:0:0:0:0:0'].includes(bare);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

function refused(host: string): Error {
  return Object.assign(new Error(`a test tried to connect to ${host}: tests reach loopback only (test/helpers/loopback-only.ts)`), { code: 'ETESTNOTLOOPBACK' });
}

/**
 * Makes every socket this test process opens refuse a destination off loopback before any packet
 * leaves: an IP is checked as given, a name after it resolves. A safety net under the target
 * policy's own tests, which decide on private and metadata addresses without opening a socket:
 * even if the policy broke, none of them could be contacted from here. The servers the tests
 * start run in processes of their own with the same guard preloaded (loopback-only-preload.ts).
 */
export function guardSockets(): void {
  const connect = net.Socket.prototype.connect as (...args: unknown[]) => net.Socket;
  net.Socket.prototype.connect = function guarded(this: net.Socket, ...args: unknown[]): net.Socket {
    // net.connect passes its normalized arguments as one array: [options, callback].
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    const options = typeof first === 'object' && first !== null ? (first as { host?: string; path?: string; lookup?: Lookup }) : undefined;
    if (options?.path !== undefined) return connect.apply(this, args); // a Unix socket
    const host = options ? (options.host ?? 'localhost') : typeof args[1] === 'string' ? args[1] : 'localhost';
    if (net.isIP(host.replace(/^\[|\]$/g, '')) || host === 'localhost') {
      if (!loopbackDestination(host)) {
        process.nextTick(() => this.destroy(refused(host)));
        return this;
      }
      return connect.apply(this, args);
    }
    if (!options) {
      process.nextTick(() => this.destroy(refused(host)));
      return this;
    }
    // A name: checked once resolved, before the connection is made.
    const lookup: Lookup = options.lookup ?? (dns.lookup as unknown as Lookup);
    options.lookup = (hostname, lookupOptions, callback) =>
      lookup(hostname, lookupOptions, (err, address, family) => {
        if (err) return callback(err, address, family);
        const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
        const off = addresses.find((a) => !loopbackDestination(a));
        if (off !== undefined) return callback(refused(`${hostname} (${off})`), address, family);
        callback(null, address, family);
      });
    return connect.apply(this, args);
  };
}
