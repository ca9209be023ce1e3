import { EngineUnavailableError } from './engine-errors.js';
import type { Fetcher } from './fetcher.js';

export type EngineName = 'plain' | 'browser';

/** The engines this server runs, by name; the scrape service picks one per request. */
export class EngineRegistry {
  constructor(private readonly engines: Partial<Record<EngineName, Fetcher>>) {}

  get(name: EngineName): Fetcher {
    const engine = this.engines[name];
    if (!engine) throw new EngineUnavailableError(`the ${name} engine is not enabled on this server`);
    return engine;
  }

  async closeAll(): Promise<void> {
    // A server without a browser pool holds no browser engine: its entry is undefined.
    await Promise.all(Object.values(this.engines).map((e) => e?.close()));
  }
}
