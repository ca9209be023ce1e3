import { expect } from 'chai';
import { attemptHeaders, subscriberHeaders } from '../../src/webhooks/webhook-headers.js';
import { signedHeaders } from '../../src/webhooks/webhook-signature.js';

describe('webhook headers', () => {
  it("send the subscription's headers, but never over the signatures, framing, Host or hop-by-hop headers", () => {
    const mine = {
      Authorization: 'Bearer abc', 'X-Tenant': 't1', 'Webhook-Id': 'forged', 'X-Firecrawl-Signature': 'forged', Host: 'evil', 'Content-Length': '1',
      'Transfer-Encoding': 'chunked', Connection: 'close', 'Bad Name': 'x', 'X-Split': 'a\r\nInjected: 1',
    };
    expect(subscriberHeaders(mine)).to.deep.equal({ authorization: 'Bearer abc', 'x-tenant': 't1' });
    const signed = signedHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8qXIpWn7XA0=', 'msg_1', 1, '{}');
    const sent = attemptHeaders(mine, signed, 2);
    expect(sent['webhook-id']).to.equal('msg_1');
    expect(sent['x-firecrawl-signature']).to.equal(signed['x-firecrawl-signature']);
    expect(sent['content-length']).to.equal('2');
    expect(sent['content-type']).to.equal('application/json');
    expect(sent).not.to.have.property('host');
  });

  it('keeps at most 32 of them', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, 'v']));
    expect(Object.keys(subscriberHeaders(many))).to.have.length(32);
  });
});
