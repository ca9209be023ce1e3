import { parentPort } from 'node:worker_threads';
import { HTML_TASKS, type HtmlTaskMessage, type HtmlTaskReply } from './html-task.js';

/** A worker thread of HtmlWorkers: runs one named task at a time and answers with its output. */
parentPort?.on('message', (message: HtmlTaskMessage) => {
  let reply: HtmlTaskReply;
  try {
    const task = HTML_TASKS[message.name] as (input: unknown) => unknown;
    reply = { id: message.id, output: task(message.input) };
  } catch (err) {
    reply = { id: message.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
parentPort?.postMessage({ ready: true } satisfies HtmlTaskReply);
