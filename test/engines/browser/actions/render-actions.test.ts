import { expect } from 'chai';
import { isOwnPopup } from '../../../../src/engines/browser/actions/render-actions.js';

describe('popups closed during actions: only the render\'s own', () => {
  const own = { contextId: 'ctx-mine', targetId: 'tab-mine' };

  it('a page opened in the render\'s browser context is closed, with or without an opener', () => {
    expect(isOwnPopup({ targetId: 'pop', type: 'page', browserContextId: 'ctx-mine' }, own)).to.equal(true);
  });

  it("another tenant's tab or popup is never closed, whoever the page claims opened it", () => {
    expect(isOwnPopup({ targetId: 'theirs', type: 'page', browserContextId: 'ctx-other' }, own)).to.equal(false);
    expect(isOwnPopup({ targetId: 'theirs', type: 'page' }, own)).to.equal(false);
  });

  it('nor the render\'s own tab, nor a worker or an iframe of its context', () => {
    expect(isOwnPopup({ targetId: 'tab-mine', type: 'page', browserContextId: 'ctx-mine' }, own)).to.equal(false);
    expect(isOwnPopup({ targetId: 'w', type: 'service_worker', browserContextId: 'ctx-mine' }, own)).to.equal(false);
    expect(isOwnPopup({ targetId: 'f', type: 'iframe', browserContextId: 'ctx-mine' }, own)).to.equal(false);
  });
});
