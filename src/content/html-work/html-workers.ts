import { Worker } from 'node:worker_threads';
import { HtmlWorkBusyError, HtmlWorkCancelledError, HtmlWorkTooCostlyError } from './html-work-errors.js';
import { FairQueue } from './fair-queue.js';
import type { HtmlTaskMessage, HtmlTaskName, HtmlTaskInput, HtmlTaskOutput, HtmlTaskReply } from './html-task.js';

/**
 * A thread's young generation, four times V8's default (48 MB in Node 20). A 1 MB page's
 * conversion leaves about 75 MB of garbage while its tree stays alive, and each of the default's
 * frequent scavenges copies that tree again. Measured against the default in one process, two
 * threads converting the same page alternately: 0.78 and 0.93 of its time. The price is memory:
 * up to 144 MB more per thread at the peak of a large conversion.
 */
const YOUNG_GENERATION_MB = 192;
/** A thread's old generation: past it the thread dies (its task fails as too costly) rather than the process. */
const OLD_GENERATION_MB = 1024;

export interface HtmlWorkLimits {
  /** Worker threads. */
  threads: number;
  /** Tasks waiting for a thread, over every key. */
  queueSize: number;
  /** Tasks of one key waiting for a thread. */
  perKeyQueue: number;
  /** A task that runs longer is a hostile input: its thread is ended (a fresh one takes its place). */
  taskTimeoutMs: number;
}

/** Who a task works for: its key (the queue's fairness is between keys) and its request's end. */
export interface HtmlWorkOwner {
  /** The key's identity (its hash, never the secret). */
  key: string;
  /** Aborted when the request gives up: its task, if still waiting, is dropped. */
  signal?: AbortSignal;
  /**
   * Nobody waits on it (a job's item): it queues behind every synchronous task, in a queue of its
   * own, so a batch can neither delay nor fill up the one its key's callers wait in.
   */
  background?: boolean;
}

export const DEFAULT_HTML_WORK_LIMITS: Readonly<HtmlWorkLimits> = { threads: 2, queueSize: 64, perKeyQueue: 16, taskTimeoutMs: 15_000 };

interface Job {
  key: string;
  message: HtmlTaskMessage;
  resolve(output: unknown): void;
  reject(err: Error): void;
  /** Stops listening to the owner's signal once the job left the queue. */
  settle(): void;
}

interface Slot {
  worker: Worker;
  /** The thread has loaded its code: a task's time runs from when a ready thread is given it. */
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  started: number;
}

/** A task past a limit: the caller can change the rules of an extraction, else only the page. */
function tooCostly(name: HtmlTaskName, limit: string): HtmlWorkTooCostlyError {
  const what = {
    extract: 'applying extract_rules to this page',
    textAndExtract: 'applying extract_rules to this page',
    rules: 'reading extract_rules',
    markdown: 'converting this page to Markdown',
    text: "reading this page's text",
    pageDocument: 'making this page into a document',
    urlPatterns: "matching a crawl's includePaths and excludePaths",
    sitemapXml: "reading a site's sitemap",
  }[name];
  return new HtmlWorkTooCostlyError(name === 'markdown' || name === 'text' || name === 'pageDocument' || name === 'sitemapXml' ? 'url' : 'extract_rules', `${what} takes ${limit}`);
}

/**
 * Every piece of work on a target's HTML (text, Markdown, extraction), whatever its size, runs on
 * a few worker threads: parsing a page takes from a millisecond to seconds, and on the event loop
 * no other tenant's request would move meanwhile. Tasks wait in a bounded queue served
 * round-robin between keys (fair-queue.ts), so that one key's many tasks delay another key's by
 * at most the tasks already running; a full queue refuses at once (HtmlWorkBusyError), a waiting
 * task is dropped when its request gives up, and a task past its time has its thread ended.
 * Background tasks (job items) wait in a second queue, of the same bounds, taken from only when no
 * synchronous task waits.
 */
export class HtmlWorkers {
  private readonly limits: HtmlWorkLimits;
  private readonly slots: Slot[] = [];
  private readonly queue: FairQueue<Job>;
  private readonly background: FairQueue<Job>;
  private nextId = 1;
  private closed = false;
  /** A running average of how long tasks take, for the Retry-After of a refusal. */
  private averageMs = 100;

  constructor(limits: Partial<HtmlWorkLimits> = {}) {
    this.limits = { ...DEFAULT_HTML_WORK_LIMITS, ...limits };
    const bounds = { total: this.limits.queueSize, perKey: this.limits.perKeyQueue };
    this.queue = new FairQueue(bounds);
    this.background = new FairQueue(bounds);
  }

  /** Tasks waiting for a thread (not those running). */
  get waiting(): number {
    return this.queue.size + this.background.size;
  }

  run<K extends HtmlTaskName>(name: K, input: HtmlTaskInput<K>, owner: HtmlWorkOwner): Promise<HtmlTaskOutput<K>> {
    if (this.closed) return Promise.reject(new Error('the HTML workers are closed'));
    if (owner.signal?.aborted) return Promise.reject(new HtmlWorkCancelledError());
    return new Promise<HtmlTaskOutput<K>>((resolve, reject) => {
      const { signal } = owner;
      const lane = owner.background ? this.background : this.queue;
      const job: Job = {
        key: owner.key,
        message: { id: this.nextId++, name, input },
        resolve: (output) => resolve(output as HtmlTaskOutput<K>),
        reject,
        settle: () => signal?.removeEventListener('abort', cancel),
      };
      const cancel = () => {
        // A running task may finish: only a waiting one is dropped.
        if (!lane.remove(job.key, job)) return;
        job.settle();
        reject(new HtmlWorkCancelledError());
      };
      const refused = lane.push(owner.key, job);
      if (refused) {
        reject(new HtmlWorkBusyError(refused, this.retryAfterSeconds(refused === 'key' ? lane.waitingOf(owner.key) : lane.size)));
        return;
      }
      signal?.addEventListener('abort', cancel, { once: true });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queue.drain(), ...this.background.drain()]) {
      job.settle();
      job.reject(new Error('the HTML workers are closed'));
    }
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.job?.reject(new Error('the HTML workers are closed'));
      slot.job = undefined;
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /** When the tasks ahead are likely done: what waits ahead, spread over the threads. */
  private retryAfterSeconds(ahead: number): number {
    return Math.max(1, Math.ceil((ahead * this.averageMs) / this.limits.threads / 1000));
  }

  private pump(): void {
    while (this.waiting > 0) {
      const slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) {
        // Threads still starting take the next tasks once ready.
        while (this.slots.length < this.limits.threads) this.spawn();
        return;
      }
      const job = (this.queue.take() ?? this.background.take()) as Job;
      job.settle();
      const running = slot;
      running.job = job;
      running.started = performance.now();
      running.timer = setTimeout(() => {
        this.fail(running, tooCostly(job.message.name, `longer than ${this.limits.taskTimeoutMs.toLocaleString('en')} ms`));
      }, this.limits.taskTimeoutMs);
      running.worker.postMessage(job.message);
    }
  }

  private spawn(): void {
    // The service runs its TypeScript through tsx, whose loader a worker thread does not inherit.
    const entry = JSON.stringify(new URL('./html-worker.ts', import.meta.url).href);
    const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`, {
      eval: true,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: OLD_GENERATION_MB },
    });
    worker.unref();
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined, started: 0 };
    worker.on('message', (reply: HtmlTaskReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.pump();
        return;
      }
      const job = slot.job;
      if (!job || job.message.id !== reply.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - slot.started);
      if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve(reply.output);
      this.pump();
    });
    worker.on('error', (err) => {
      // Out of its memory limits: the task was too costly, not the service broken.
      const tooBig = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      const name = slot.job?.message.name;
      this.fail(slot, tooBig && name ? tooCostly(name, `more than ${OLD_GENERATION_MB} MB of memory`) : err);
    });
    worker.on('exit', () => this.fail(slot, new Error('an HTML worker exited')));
    this.slots.push(slot);
  }

  /** The slot's job fails and its thread is replaced (a thread stuck in a task cannot be interrupted). */
  private fail(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.timer);
    slot.job?.reject(err);
    slot.job = undefined;
    void slot.worker.terminate();
    if (!this.closed) this.pump();
  }
}
