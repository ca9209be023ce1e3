import { expect } from 'chai';
import type { ActionPage } from '../../../../src/engines/browser/actions/action-page.js';
import { screenshot } from '../../../../src/engines/browser/actions/capture-actions.js';
import type { CdpSession } from '../../../../src/engines/browser/cdp-session.js';
import type { PageReader } from '../../../../src/engines/browser/page-reader.js';
import { Deadline } from '../../../../src/time/deadline.js';

/** A page whose DevTools connection records the methods sent, answering what a screenshot needs. */
function recordingPage(sent: string[]): ActionPage {
  const cdp = {
    send: (method: string) => {
      sent.push(method);
      if (method === 'Page.getLayoutMetrics') return Promise.resolve({ cssLayoutViewport: { clientWidth: 800, clientHeight: 600 }, cssContentSize: { width: 800, height: 2000 } });
      return Promise.resolve({ data: Buffer.from('png').toString('base64') });
    },
  } as unknown as CdpSession;
  return {
    cdp,
    mainFrameId: 'main',
    reader: {} as PageReader,
    useWindow: () => Promise.resolve(),
    deadline: new Deadline(30_000),
    ends: new AbortController().signal,
    maxBodyBytes: 1024,
  };
}

describe('screenshot action: the layout asked for only when a full page needs it', () => {
  it('a screenshot of the window never asks for the layout metrics', async () => {
    const sent: string[] = [];
    const uri = await screenshot(recordingPage(sent), { type: 'screenshot', fullPage: false });
    expect(uri).to.match(/^data:image\/png;base64,/);
    expect(sent).to.deep.equal(['Page.captureScreenshot']);
  });

  it('nor does one in a viewport the action names', async () => {
    const sent: string[] = [];
    await screenshot(recordingPage(sent), { type: 'screenshot', fullPage: false, viewport: { width: 1024, height: 768 } });
    expect(sent).to.deep.equal(['Page.captureScreenshot']);
  });

  it('a full-page screenshot reads the layout, as its clip needs', async () => {
    const sent: string[] = [];
    await screenshot(recordingPage(sent), { type: 'screenshot', fullPage: true });
    expect(sent).to.include('Page.getLayoutMetrics');
    expect(sent.at(-1)).to.equal('Page.captureScreenshot');
  });
});
