import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { InvalidActionError, validActions } from '../../../../src/engines/browser/actions/action-limits.js';
import { browserActionsSchema, MAX_ACTIONS } from '../../../../src/engines/browser/actions/browser-action.js';

function refusal(raw: unknown, timeoutMs = 60_000): InvalidActionError {
  try {
    validActions(raw, timeoutMs);
  } catch (err) {
    if (err instanceof InvalidActionError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('browser actions: validation and limits', () => {
  it("Firecrawl's vocabulary, with its defaults applied", () => {
    expect(
      validActions(
        [
          { type: 'wait', milliseconds: 10 },
          { type: 'wait', selector: '#a' },
          { type: 'click', selector: 'a.b' },
          { type: 'write', text: 'x' },
          { type: 'press', key: 'Enter' },
          { type: 'press', key: 'a' },
          { type: 'scroll' },
          { type: 'screenshot' },
          { type: 'scrape' },
          { type: 'executeJavascript', script: '1 + 1' },
          { type: 'pdf' },
        ],
        60_000,
      ),
    ).to.deep.equal([
      { type: 'wait', milliseconds: 10 },
      { type: 'wait', selector: '#a' },
      { type: 'click', selector: 'a.b', all: false },
      { type: 'write', text: 'x' },
      { type: 'press', key: 'Enter' },
      { type: 'press', key: 'a' },
      { type: 'scroll', direction: 'down' },
      { type: 'screenshot', fullPage: false },
      { type: 'scrape' },
      { type: 'executeJavascript', script: '1 + 1' },
      { type: 'pdf', format: 'Letter', landscape: false, scale: 1 },
    ]);
  });

  it('each refusal names where it is', () => {
    expect(refusal(Array.from({ length: MAX_ACTIONS + 1 }, () => ({ type: 'scrape' }))).param).to.equal('actions');
    expect(refusal([{ type: 'scrape' }, { type: 'click' }]).param).to.equal('actions.1.selector');
    expect(refusal([{ type: 'scrape', extra: 1 }]).param).to.equal('actions.0');
    expect(refusal([{ type: 'teleport' }]).param).to.match(/^actions\.0/);
    expect(refusal([{ type: 'wait', milliseconds: 5, selector: 'a' }]).param).to.equal('actions.0');
    expect(refusal([{ type: 'click', selector: 'a[' }]).param).to.equal('actions.0.selector');
    expect(refusal([{ type: 'press', key: 'Hyper' }]).param).to.equal('actions.0.key');
    expect(refusal('not a list').param).to.equal('actions');
  });

  it('the waits: 60 s in all at most, and less than the timeout', () => {
    expect(refusal([{ type: 'wait', milliseconds: 30_000 }, { type: 'wait', milliseconds: 30_001 }]).message).to.match(/at most 60000 ms/);
    expect(validActions([{ type: 'wait', milliseconds: 30_000 }, { type: 'wait', milliseconds: 29_000 }], 60_000)).to.have.length(2);
    expect(refusal([{ type: 'wait', milliseconds: 2_000 }], 2_000).message).to.match(/leaves nothing/);
  });

  it('one bound on their number: the check, the stored schema and the Firecrawl document agree', () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ type: 'scrape' }));
    expect(validActions(many(MAX_ACTIONS), 60_000)).to.have.length(MAX_ACTIONS);
    expect(refusal(many(MAX_ACTIONS + 1)).message).to.include(`at most ${MAX_ACTIONS}`);
    expect(browserActionsSchema.safeParse(many(MAX_ACTIONS)).success).to.equal(true);
    expect(browserActionsSchema.safeParse(many(MAX_ACTIONS + 1)).success).to.equal(false);
    for (const document of ['openapi/firecrawl/components/requests.yaml', 'openapi/dist/firecrawl.yaml']) {
      const declared = /\n {2,}actions:\n {4,}type: array\n {4,}maxItems: (\d+)\n/.exec(readFileSync(document, 'utf8'));
      expect(declared, document).to.not.equal(null);
      expect(Number(declared?.[1]), document).to.equal(MAX_ACTIONS);
    }
  });
});
