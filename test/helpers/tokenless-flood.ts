import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** The flood's own code, run in a worker thread: its answers must not queue behind the test's measure. */
const FLOOD_WORKER = `
const http = require('node:http');
const { parentPort, workerData: w } = require('node:worker_threads');
const started = Date.now();
const statuses = {};
let state = 'paused';
let wake = () => {};
let resumed = new Promise((resolve) => (wake = resolve));
let sent = 0, inFlight = 0, phaseStart = 0, phaseSent = 0, phaseAnswered = 0, phases = 0;
const settle = () => { if (state === 'paused' && inFlight === 0) parentPort.postMessage('paused'); };
parentPort.on('message', (m) => {
  if (m === 'flood') {
    state = 'flooding';
    phaseStart = Date.now();
    phaseSent = phaseAnswered = 0;
    phases++;
    wake();
  } else if (m === 'pause') {
    state = 'paused';
    resumed = new Promise((resolve) => (wake = resolve));
    settle();
  } else {
    state = 'stopped';
    wake();
  }
});
const shapes = [
  ['GET', '/admin/v1/plans', { accept: 'image/*', 'sec-fetch-dest': 'image', 'sec-fetch-site': 'cross-site' }, undefined],
  ['OPTIONS', '/admin/v1/plans', { origin: 'https://attacker.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }, undefined],
  ['POST', '/dashboard/sign-in', { 'content-type': 'application/x-www-form-urlencoded' }, 'secret='],
];
const agent = new http.Agent({ keepAlive: true, maxSockets: w.inFlight, localAddress: w.from });
const one = ([method, path, headers, body]) => new Promise((resolve) => {
  inFlight++;
  const done = () => { inFlight--; resolve(); settle(); };
  const req = http.request(w.base + path, { method, headers, agent }, (res) => {
    statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
    if (++phaseAnswered === (phases === 1 ? w.warm : w.warmAgain) && state === 'flooding') parentPort.postMessage('flooding');
    res.resume();
    res.on('end', done);
  });
  req.on('error', done);
  req.end(body);
});
// Paced: the n-th request of a phase leaves n / rate seconds into it (or once a lane is free).
const lane = async () => {
  while (state !== 'stopped' && sent < w.max && Date.now() - started < w.ms) {
    if (state === 'paused') {
      await resumed;
      continue;
    }
    const wait = phaseStart + (phaseSent++ * 1000) / w.rate - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (state !== 'flooding') continue;
    await one(shapes[sent++ % shapes.length]);
  }
};
Promise.all(Array.from({ length: w.inFlight }, lane)).then(() => {
  agent.destroy();
  parentPort.postMessage([sent, statuses]);
});
`;


export interface FloodOptions {
  /** The server's base URL. */
  base: string;
  /** The loopback address it comes from (one client). */
  from: string;
  /** Requests a second (each phase paced from its start), with at most `inFlight` at a time. */
  rate: number;
  inFlight: number;
  /** Bounds on the whole flood: requests sent, and its time. */
  max: number;
  ms: number;
  /** Answers of the first phase, and of each later one, before flood() resolves. */
  warm: number;
  warmAgain: number;
}

/**
 * A flood of what any web page can make its visitors' browsers send to the server, without a
 * credential: an <img> of an admin path, a CORS preflight, an empty sign-in form; on kept-alive
 * connections, as a browser's. It runs in phases: flood() starts one (resolving once it is warm),
 * pause() waits until none is in flight, stop() ends it with what it sent.
 */
export class TokenlessFlood {
  private readonly worker: Worker;
  private readonly result: Promise<{ sent: number; statuses: Record<string, number> }>;

  constructor(options: FloodOptions) {
    this.worker = new Worker(FLOOD_WORKER, { eval: true, workerData: options });
    this.result = new Promise((resolve) => {
      this.worker.on('message', (message: unknown) => {
        if (Array.isArray(message)) resolve({ sent: message[0] as number, statuses: message[1] as Record<string, number> });
      });
    });
  }

  async flood(): Promise<void> {
    this.worker.postMessage('flood');
    await this.next('flooding');
  }

  async pause(): Promise<void> {
    this.worker.postMessage('pause');
    await this.next('paused');
  }

  /** Ends it (once its requests in flight are answered): how many it sent, by the status they were answered. */
  async stop(): Promise<{ sent: number; statuses: Record<string, number> }> {
    this.worker.postMessage('stop');
    const result = await this.result;
    await this.worker.terminate();
    return result;
  }

  private async next(expected: string): Promise<void> {
    const [message] = (await once(this.worker, 'message')) as [unknown];
    if (message !== expected) throw new Error(`the flood said ${JSON.stringify(message)}, not ${expected}`);
  }
}
