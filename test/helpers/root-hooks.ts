import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromiumPids } from './chromium-processes.js';

/** After the whole run, every server and session the tests started must have taken its Chromium with it. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(10_000);
    for (let i = 0; i < 20 && chromiumPids().length > 0; i++) await sleep(250);
    expect(chromiumPids(), 'Chromium processes left after the test run').to.deep.equal([]);
  },
};
