import { expect } from 'chai';
import { html, jsonBlock } from '../../src/dashboard/html.js';

describe('dashboard markup (html)', () => {
  it('escapes every value put into a template, however hostile, and keeps html made by html', () => {
    const label = `"><script>alert(1)</script><img src=x onerror='x'>\``;
    const out = String(html`<td title="${label}">${label}${html`<b>${'&'}</b>`}${[1, '<i>', null, undefined, false]}</td>`);
    expect(out).to.equal(
      '<td title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;x&#39;&gt;&#96;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;x&#39;&gt;&#96;<b>&amp;</b>1&lt;i&gt;</td>',
    );
  });

  it('puts data in a JSON block no value can close', () => {
    const block = String(jsonBlock('d', { label: '</script><script>alert(1)</script>', amp: '&' }));
    expect(block).not.to.contain('</script><script>');
    expect(block.match(/<\/script>/g)).to.have.length(1);
    const json = /<script type="application\/json" id="d">(.*)<\/script>/.exec(block)?.[1] ?? '';
    expect(JSON.parse(json)).to.deep.equal({ label: '</script><script>alert(1)</script>', amp: '&' });
  });
});
