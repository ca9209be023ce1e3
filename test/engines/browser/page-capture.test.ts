import { expect } from 'chai';
import { captureClip, MAX_CAPTURE_HEIGHT, MAX_CAPTURE_PIXELS } from '../../../src/engines/browser/page-capture.js';

describe('captureClip: what of an element is captured', () => {
  const layout = { width: 1920, height: 5000 };

  it('takes an element inside the layout and the window whole, in whole pixels', () => {
    expect(captureClip({ x: 10.4, y: 50.2, width: 300, height: 200.5 }, layout, 1920)).to.deep.equal({
      clip: { x: 10, y: 50, width: 301, height: 201, scale: 1 },
      truncated: false,
    });
  });

  it("cuts an element wider than the window at the window's width, and taller than the limit at the limit, saying so", () => {
    const huge = { x: 0, y: 0, width: 16_384, height: 16_384 };
    expect(captureClip(huge, { width: 16_384, height: 16_384 }, 1920)).to.deep.equal({ clip: { x: 0, y: 0, width: 1920, height: 16_384, scale: 1 }, truncated: true });
    expect(captureClip({ x: 0, y: 0, width: 800, height: 40_000 }, { width: 800, height: 40_000 }, 1920)?.clip.height).to.equal(MAX_CAPTURE_HEIGHT);
  });

  it("keeps to the page's layout: what lies outside it is not captured, and an element wholly outside has nothing to capture", () => {
    // An element reaching past the layout (a negative margin, a transform) is captured where it is laid out.
    expect(captureClip({ x: -500, y: -20, width: 1000, height: 100 }, layout, 1920)).to.deep.equal({ clip: { x: 0, y: 0, width: 500, height: 80, scale: 1 }, truncated: false });
    expect(captureClip({ x: 0, y: 4_900, width: 100, height: 16_384 }, layout, 1920)?.clip.height).to.equal(100);
    expect(captureClip({ x: 3_000, y: 0, width: 100, height: 100 }, layout, 1920)).to.equal(undefined);
    expect(captureClip({ x: 0, y: -200, width: 100, height: 100 }, layout, 1920)).to.equal(undefined);
  });

  it('never exceeds the pixel budget, whatever window it is given', () => {
    const cut = captureClip({ x: 0, y: 0, width: 10_000, height: 16_384 }, { width: 10_000, height: 16_384 }, 10_000);
    expect(cut!.clip.width * cut!.clip.height).to.be.at.most(MAX_CAPTURE_PIXELS);
    expect(cut!.truncated).to.equal(true);
  });
});
