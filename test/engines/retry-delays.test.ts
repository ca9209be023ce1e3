import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { pause } from '../../src/engines/retry-delays.js';

describe('pause', () => {
  it('leaves no abort listener behind once its timer fires, however many pauses share the signal', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 200; i++) await pause(0, controller.signal);
    await Promise.all(Array.from({ length: 10 }, () => pause(1, controller.signal)));
    expect(getEventListeners(controller.signal, 'abort')).to.have.length(0);
  });

  it('ends early when the signal aborts, and at once when it already has', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = pause(10_000, controller.signal);
    controller.abort();
    await waiting;
    await pause(10_000, controller.signal);
    expect(Date.now() - started).to.be.below(1_000);
    expect(getEventListeners(controller.signal, 'abort')).to.have.length(0);
  });
});
