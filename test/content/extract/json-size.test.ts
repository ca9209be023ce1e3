import { expect } from 'chai';
import { jsonStringLength } from '../../../src/content/extract/json-size.js';

describe('jsonStringLength', () => {
  it('is the length of JSON.stringify for every kind of character', () => {
    const samples = [
      '',
      'plain text',
      'quote " and backslash \\',
      'controls \b\t\n\f\r and \u0000 \u0001 \u001f',
      'é ü 中文 and an emoji 😀',
      'a lone high \ud800 surrogate, a lone low \udc00 one, and \udbff\udfff a pair',
      '\ud800',
      'x\udc00',
      '\u2028 \u2029 </script>',
      '"'.repeat(1000),
    ];
    for (const text of samples) expect(jsonStringLength(text), JSON.stringify(text)).to.equal(JSON.stringify(text).length);
  });

  it('agrees with JSON.stringify on every UTF-16 code unit', () => {
    for (let c = 0; c < 0x10000; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      if (jsonStringLength(text) !== JSON.stringify(text).length) expect.fail(`code unit ${c.toString(16)}`);
    }
  });
});
