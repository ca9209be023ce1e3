import net from 'node:net';
import tls from 'node:tls';
import type { ProxyEndpoint } from './proxy-endpoint.js';
import { bareHost } from '../host-port.js';

const MAX_ANSWER_HEAD = 16 * 1024;

/**
 * The tunnel could not be opened: the request may move to another proxy. `blamesProxy` is false
 * when the proxy worked and said it could not reach the target (502, 504): a target that refuses
 * connections must not cool down every healthy proxy for every other request.
 */
export class ProxyFailure extends Error {
  constructor(
    message: string,
    readonly blamesProxy = true,
  ) {
    super(message);
  }
}

/** CONNECT answers that mean "the proxy is fine, the target is not". */
const TARGET_SIDE = new Set([502, 504]);

function authorization(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

/**
 * A TCP stream to `address:port` through the proxy's CONNECT tunnel. The tunnel is asked for the
 * address scrapegate resolved and checked, never for a name the proxy would resolve again; and
 * it is set up before any byte of the request leaves, so a proxy that fails costs nothing but
 * time and the request can be sent through another one, whatever its method.
 */
export function openTunnel(proxy: ProxyEndpoint, address: string, port: number, timeoutMs: number): Promise<net.Socket> {
  const host = bareHost(proxy.url.hostname);
  const proxyPort = Number(proxy.url.port) || (proxy.url.protocol === 'https:' ? 443 : 80);
  const target = `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;
  const auth = authorization(proxy.url);
  const head = `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`;

  return new Promise((resolve, reject) => {
    const secure = proxy.url.protocol === 'https:';
    const socket = secure
      ? tls.connect({ host, port: proxyPort, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host, port: proxyPort });
    let answer = Buffer.alloc(0);
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const fail = (why: string, blamesProxy = true) => {
      cleanup();
      socket.destroy();
      reject(new ProxyFailure(why, blamesProxy));
    };
    const onError = (err: NodeJS.ErrnoException) => fail(err.code ?? err.message);
    const onClose = () => fail('closed the connection');
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (answer.length > MAX_ANSWER_HEAD) fail('sent an oversized answer');
        return;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.toString('latin1', 0, Math.min(end, 64)))?.[1] ?? 0);
      if (status < 200 || status > 299) return fail(status ? `answered ${status}` : 'sent a malformed answer', !TARGET_SIDE.has(status));
      cleanup();
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(head));
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
}
