import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { HTML_TASKS, type HtmlTaskMessage, type HtmlTaskReply } from './html-task.js';

/**
 * The thread's niceness. On a busy machine the event loop, which answers every tenant, must get
 * the cores before a long conversion does: at 10 a thread weighs about a tenth of the event
 * loop's share of a core it contends for (the kernel's CFS weights), while an idle core is still
 * all its own.
 */
const WORKER_NICE = 10;

/** Lowers this thread's priority, not the process's (Linux: a thread is a task of its own, /proc/thread-self names it); elsewhere, nothing. */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, WORKER_NICE);
  } catch {
    // No /proc, or not allowed: the thread keeps the process's priority.
  }
}

lowerPriority();

/** A worker thread of HtmlWorkers: runs one named task at a time and answers with its output. */
parentPort?.on('message', async (message: HtmlTaskMessage) => {
  let reply: HtmlTaskReply;
  try {
    const task = HTML_TASKS[message.name] as (input: unknown) => unknown;
    reply = { id: message.id, output: await task(message.input) };
  } catch (err) {
    reply = { id: message.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
parentPort?.postMessage({ ready: true } satisfies HtmlTaskReply);
