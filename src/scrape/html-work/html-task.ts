import { pageText } from '../page-text.js';

/** The HTML work an answer may need, by name: pure functions of their input, run inline or in a worker. */
export const HTML_TASKS = {
  text: (html: string): string => pageText(html),
};

export type HtmlTaskName = keyof typeof HTML_TASKS;
export type HtmlTaskInput<K extends HtmlTaskName> = Parameters<(typeof HTML_TASKS)[K]>[0];
export type HtmlTaskOutput<K extends HtmlTaskName> = ReturnType<(typeof HTML_TASKS)[K]>;

export interface HtmlTaskMessage {
  id: number;
  name: HtmlTaskName;
  input: unknown;
}

export type HtmlTaskReply = { id: number; output: unknown } | { id: number; error: string };
