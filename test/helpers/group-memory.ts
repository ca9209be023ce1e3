import { groupPssMb } from '../../src/engines/browser/driver-process.js';
import type { ServerProcess } from './server-process.js';

/** The process group of the server's newest browser session, from its pool's `started` event. */
export function newestSessionGroup(server: ServerProcess): number {
  const group = server.eventsNamed('pool.started').at(-1)?.processGroup;
  if (typeof group !== 'number') throw new Error('no browser session has started');
  return group;
}

/**
 * Samples the summed PSS of one process group (a browser session: driver, Chromium and its
 * children) while an attack runs; `stop()` gives the peak in MB.
 */
export class GroupPssSampler {
  private peakMb = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly group: number,
    private readonly everyMs = 100,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.peakMb = Math.max(this.peakMb, await groupPssMb(this.group));
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
    }
  }

  async stop(): Promise<number> {
    this.running = false;
    await this.loop;
    return this.peakMb;
  }
}
