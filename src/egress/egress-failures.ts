import { EgressError, TargetUnusableError } from './fetch-errors.js';

/**
 * The words for a failed connection, in one place: the plain engine meets these as Node error
 * codes, the browser as Chrome's net::ERR_* names, and a caller reads the same sentence for the
 * same failure from either.
 */
const WORDS = {
  refused: 'connection refused',
  reset: 'connection reset by the target',
  unreachable: 'no route to the target',
  tls: 'the TLS handshake with the target failed',
  headers: "the target's response headers are too large or too many",
} as const;

const NODE_CODES: Record<string, keyof typeof WORDS> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ERR_STREAM_PREMATURE_CLOSE: 'reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
  HPE_HEADER_OVERFLOW: 'headers',
};

/** TLS verification and handshake failures as Node and OpenSSL name them. */
const NODE_TLS = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|ERR_OSSL_)/;

export function egressFailure(kind: keyof typeof WORDS, cause?: unknown): EgressError {
  return new EgressError(kind, WORDS[kind], { cause });
}

/** A Node socket or HTTP error as an egress failure; undefined for codes that are not about the connection. */
export function fromNodeError(err: unknown): EgressError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (NODE_CODES[code]) return egressFailure(NODE_CODES[code], err);
  if (NODE_TLS.test(code)) return egressFailure('tls', err);
  return undefined;
}

/** Chrome's `net::ERR_…` text of a failed navigation as an egress failure. */
export function fromChromeError(errorText: string): EgressError | undefined {
  const name = errorText.replace(/^net::/, '');
  if (/^ERR_CONNECTION_REFUSED/.test(name)) return egressFailure('refused');
  if (/^ERR_(CONNECTION_(RESET|CLOSED|ABORTED)|EMPTY_RESPONSE)/.test(name)) return egressFailure('reset');
  if (/^ERR_(ADDRESS_UNREACHABLE|NETWORK_CHANGED|INTERNET_DISCONNECTED|CONNECTION_FAILED)/.test(name)) return egressFailure('unreachable');
  if (/^ERR_(CERT_|SSL_|BAD_SSL_)/.test(name)) return egressFailure('tls');
  if (/^ERR_RESPONSE_HEADERS_(TOO_BIG|MULTIPLE)/.test(name)) return egressFailure('headers');
  return undefined;
}

/** A status outside 100–599 is not HTTP (RFC 9110 §15): both engines refuse the answer in these words. */
export function invalidStatus(status: number): TargetUnusableError {
  return new TargetUnusableError(`the target answered with the invalid HTTP status ${status}`);
}

/** Node's HTTP parser refused the answer (no status line, an HTTP/2 preface, a broken header or chunk). */
export function fromParserError(err: unknown): TargetUnusableError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (!code.startsWith('HPE_') || code === 'HPE_HEADER_OVERFLOW') return undefined;
  return new TargetUnusableError("the target's answer is not valid HTTP", { cause: err });
}
