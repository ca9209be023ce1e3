import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { livingIn } from './chromium-processes.js';
import { guardSockets } from './loopback-only.js';
import { startedGroups } from './started-processes.js';

guardSockets();

/**
 * After the whole run, every server, session and Grid the tests started must have taken its
 * processes with it. Only their own process groups are looked at (started-processes.ts).
 */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(10_000);
    for (let i = 0; i < 20 && livingIn(startedGroups()).length > 0; i++) await sleep(250);
    expect(livingIn(startedGroups()), 'processes of the sessions and Grids the tests started, left after the run').to.deep.equal([]);
  },
};
