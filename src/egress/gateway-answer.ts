import http from 'node:http';
import { TargetUnusableError } from './fetch-errors.js';
import { invalidStatus } from './egress-failures.js';

/** What Node sends in a status line or header value: anything else throws from writeHead. */
const SENDABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The pairs of `raw` Node will send; a hostile target's name or value that it would refuse is dropped. */
function sendable(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      http.validateHeaderName(raw[i]);
      http.validateHeaderValue(raw[i], raw[i + 1]);
      out.push(raw[i], raw[i + 1]);
    } catch {
      // not sendable: left out
    }
  }
  return out;
}

/**
 * Relays a target's answer to Chromium as received, or says why it cannot: a status outside
 * 100–599 is not HTTP (Node's writeHead would throw, and a throw here would end the process).
 * A reason phrase or header Node would refuse to send is left out rather than failing the page.
 */
export function relayAnswer(answer: http.IncomingMessage, res: http.ServerResponse, headers: string[]): TargetUnusableError | undefined {
  const status = answer.statusCode ?? 0;
  if (status < 100 || status > 599 || status === 101) return invalidStatus(status);
  const reason = answer.statusMessage && SENDABLE.test(answer.statusMessage) ? answer.statusMessage : undefined;
  try {
    res.writeHead(status, reason, headers);
  } catch {
    try {
      res.writeHead(status, reason, sendable(headers));
    } catch {
      return new TargetUnusableError("the target's answer could not be relayed to the browser");
    }
  }
  answer.pipe(res);
  return undefined;
}
