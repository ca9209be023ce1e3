import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { HTML_TASKS, type HtmlTaskMessage, type HtmlTaskName, type HtmlTaskInput, type HtmlTaskOutput, type HtmlTaskReply } from './html-task.js';

/** Below this many characters a task runs inline: a thread's round trip would cost more than the work. */
const INLINE_CHARS = 64 * 1024;
/** A task that takes longer is a hostile input: its thread is ended and a fresh one started. */
const TASK_TIMEOUT_MS = 15_000;
/**
 * A thread's young generation, four times V8's default (48 MB in Node 20). A 1 MB page's
 * conversion leaves about 75 MB of garbage while its tree stays alive, and each of the default's
 * frequent scavenges copies that tree again. Measured against the default in one process, two
 * threads converting the same page alternately: 0.78 and 0.93 of its time. The price is memory:
 * up to 144 MB more per thread at the peak of a large conversion.
 */
const YOUNG_GENERATION_MB = 192;

interface Job {
  message: HtmlTaskMessage;
  resolve(output: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Parsing a 10 MB page takes a quarter of a second or more; on the event loop, that is a quarter
 * of a second in which no other tenant's request moves. Large inputs are handed to a few worker
 * threads instead (queued in order); small ones run inline.
 */
export class HtmlWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = Math.max(1, Math.min(4, os.availableParallelism() - 1))) {}

  run<K extends HtmlTaskName>(name: K, input: HtmlTaskInput<K>, size: number): Promise<HtmlTaskOutput<K>> {
    if (size < INLINE_CHARS || this.closed) return Promise.resolve((HTML_TASKS[name] as (i: HtmlTaskInput<K>) => HtmlTaskOutput<K>)(input));
    return new Promise<HtmlTaskOutput<K>>((resolve, reject) => {
      this.queue.push({ message: { id: this.nextId++, name, input }, resolve: (o) => resolve(o as HtmlTaskOutput<K>), reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the HTML workers are closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => this.fail(slot!, new Error(`the ${job.message.name} task took longer than ${TASK_TIMEOUT_MS} ms`)), TASK_TIMEOUT_MS);
      slot.worker.postMessage(job.message);
    }
  }

  private spawn(): Slot {
    // The service runs its TypeScript through tsx, whose loader a worker thread does not inherit.
    const entry = JSON.stringify(new URL('./html-worker.ts', import.meta.url).href);
    const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`, {
      eval: true,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    worker.unref();
    const slot: Slot = { worker, job: undefined, timer: undefined };
    worker.on('message', (reply: HtmlTaskReply) => {
      const job = slot.job;
      if (!job || job.message.id !== reply.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve(reply.output);
      this.pump();
    });
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', () => this.fail(slot, new Error('an HTML worker exited')));
    this.slots.push(slot);
    return slot;
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
    this.pump();
  }
}
