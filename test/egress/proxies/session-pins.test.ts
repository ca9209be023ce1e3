import { expect } from 'chai';
import { SessionPins } from '../../../src/egress/proxies/session-pins.js';

describe('SessionPins', () => {
  it('stay bounded at 100,000 sessions, the least recently used going first', () => {
    const pins = new SessionPins(60_000);
    for (let i = 0; i < 100_050; i++) pins.pin(`s${i}`, 'exit');
    expect(pins.size).to.equal(100_000);
    expect(pins.touch('s49')).to.equal(undefined);
    expect(pins.touch('s50')).to.equal('exit');
    // s50 was just used: the next to go is s51.
    pins.pin('new', 'exit');
    expect(pins.size).to.equal(100_000);
    expect(pins.touch('s50')).to.equal('exit');
    expect(pins.touch('s51')).to.equal(undefined);
  });

  it('let expired pins go as new ones come, so idle sessions take no room', () => {
    let now = 0;
    const pins = new SessionPins(1_000, 10, () => now);
    for (let i = 0; i < 5; i++) pins.pin(`s${i}`, `exit-${i}`);
    now = 500;
    pins.pin('s0', 'exit-0');
    now = 1_200;
    pins.pin('s9', 'exit-9');
    expect(pins.size).to.equal(2);
    expect(pins.touch('s0')).to.equal('exit-0');
    now = 2_500;
    expect(pins.touch('s0')).to.equal(undefined);
    expect(pins.size).to.equal(1);
  });

  it('move a session\'s pin, or drop it', () => {
    const pins = new SessionPins(1_000);
    pins.pin('s', 'a');
    pins.pin('s', 'b');
    expect(pins.touch('s')).to.equal('b');
    pins.unpin('s');
    expect(pins.touch('s')).to.equal(undefined);
    expect(pins.size).to.equal(0);
  });
});
