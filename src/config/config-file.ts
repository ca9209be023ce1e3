import { readFileSync } from 'node:fs';
import { ConfigError } from './config.js';

/**
 * A JSON file that an environment variable names (PLANS_CONFIG, PROXY_CONFIG), read and checked
 * once at start. Anything wrong with it, unreadable or invalid, is a ConfigError naming the
 * variable and the file, and stops the server like a bad variable (exit 2). `parse` words its own
 * messages, and never repeats a credential.
 */
export function readConfigFile<T>(variable: string, path: string, parse: (doc: unknown) => T): T {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${variable} ${path}: ${(err as Error).message}`);
  }
  try {
    return parse(doc);
  } catch (err) {
    throw new ConfigError(`${variable} ${path}: ${(err as Error).message}`);
  }
}
