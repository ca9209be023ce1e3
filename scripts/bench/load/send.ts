// One request of the run sent to scrapegate, and its answer judged against what the request
// allows: status, Svc-credits-cost, the target's status and a piece of its content.
import type { Environment } from './environment.js';
import { expectation, expectedCost } from './expectation.js';
import { deadlineSeconds, httpCall } from './http-call.js';
import type { PlannedRequest } from './plan.js';

export interface Outcome {
  request: PlannedRequest;
  /** 0 when no answer came (the client gave up or the connection failed). */
  status: number;
  ms: number;
  /** Svc-credits-cost of a 200. */
  cost: number | undefined;
  /** Why the answer is not what the request allows, if it is not. */
  problem: string | undefined;
}

/** The text a 200 carries where the target's content is: v1 `content`, extended `html`, v2 the body. */
function pageOf(request: PlannedRequest, res: Response, body: string): { status: number | undefined; content: string } {
  if (request.api.startsWith('v2')) return { status: Number(res.headers.get('svc-page-status-code') ?? NaN), content: body };
  const json = JSON.parse(body) as { status_code?: number; content?: string; html?: string };
  return { status: json.status_code, content: (request.api.startsWith('v1') ? json.content : json.html) ?? '' };
}

export async function send(env: Environment, request: PlannedRequest, notWallStatus: (name: string) => number): Promise<Outcome> {
  const call = httpCall(request, env.keys.get(request.key)!, env.targets);
  const query = call.query.length > 0 ? `?${new URLSearchParams(call.query)}` : '';
  const started = performance.now();
  // scrapegate answers by its deadline; the client waits 15 s more before calling it a hang.
  const signal = AbortSignal.timeout((deadlineSeconds(request) + 15) * 1000);
  let res: Response;
  let body: string;
  try {
    res = await fetch(`${env.server.base}${call.path}${query}`, { ...call.init, signal });
    body = await res.text();
  } catch (err) {
    return { request, status: 0, ms: performance.now() - started, cost: undefined, problem: `no answer: ${(err as Error).message}` };
  }
  const ms = performance.now() - started;
  const expected = expectation(request, notWallStatus);
  const costHeader = res.headers.get('svc-credits-cost');
  const cost = res.status === 200 && costHeader !== null ? Number(costHeader) : undefined;
  let problem: string | undefined;
  const detail = () => body.slice(0, 160).replace(/\s+/g, ' ');
  if (res.status === 200) {
    if (cost === undefined) problem = '200 without Svc-credits-cost';
    else if (cost !== expectedCost(request)) problem = `Svc-credits-cost ${cost}, the table says ${expectedCost(request)}`;
    else if (!expected.page) problem = `200 where ${expected.statuses.join('/')} was due`;
    else {
      try {
        const page = pageOf(request, res, body);
        if (page.status !== expected.page.status) problem = `target status ${page.status}, expected ${expected.page.status}`;
        else if (!page.content.includes(expected.page.marker)) problem = `content without ${JSON.stringify(expected.page.marker)}: ${detail()}`;
      } catch (err) {
        problem = `unreadable answer: ${(err as Error).message}`;
      }
    }
  } else if (!expected.statuses.includes(res.status)) {
    const timedOut = res.status === 404 && /timed out/.test(body);
    if (!(timedOut && expected.timeoutAllowed)) problem = `${res.status} where ${expected.statuses.join('/')} was due: ${detail()}`;
  }
  return { request, status: res.status, ms, cost, problem };
}
