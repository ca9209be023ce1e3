import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { newWebhookSecret, standardSigningKey } from '../../src/webhooks/webhook-secret.js';
import { signedHeaders } from '../../src/webhooks/webhook-signature.js';

/**
 * Vectors made by the reference implementation, the `standardwebhooks` npm package 1.1.1
 * (`new Webhook(secret).sign(id, date, body)`), outside this repository: the signer must agree
 * with it byte for byte. The Firecrawl value is HMAC-SHA256 keyed with the whole secret string.
 */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8qXIpWn7XA0=';
const VECTORS = [
  {
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    standard: 'v1,cRImNCQvRHoEITYnw7PdRtUEi8396kOYd1wVuVgw8LE=',
    firecrawl: 'sha256=5c29607b8ff1b4be80e7685d96987a30284a32ea34d6bbd9bc3b6950d159b730',
  },
  {
    id: 'msg_1',
    timestamp: 1700000000,
    body: '{"success":true,"type":"batch_scrape.started","id":"job-1","webhookId":"msg_1","data":[],"metadata":{"a":"b"}}',
    standard: 'v1,NQ/8yN10iNt2nA8Jzft6UJWRCwgPwQnFGQPoUX6lofw=',
    firecrawl: undefined,
  },
];

describe('webhook signatures', () => {
  it('match the Standard Webhooks reference implementation on known vectors', () => {
    for (const v of VECTORS) {
      const h = signedHeaders(SECRET, v.id, v.timestamp, v.body);
      expect(h['webhook-signature']).to.equal(v.standard);
      expect(h['webhook-id']).to.equal(v.id);
      expect(h['webhook-timestamp']).to.equal(String(v.timestamp));
      if (v.firecrawl) expect(h['x-firecrawl-signature']).to.equal(v.firecrawl);
    }
  });

  it('key Firecrawl\'s with the secret string as shown (whsec_ included) and Standard Webhooks\' with the decoded bytes', () => {
    const body = '{"é":"ü"}';
    const h = signedHeaders(SECRET, 'msg_x', 1, body);
    expect(h['x-firecrawl-signature']).to.equal(`sha256=${createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex')}`);
    expect(h['x-firecrawl-signature']).not.to.equal(`sha256=${createHmac('sha256', standardSigningKey(SECRET)).update(body).digest('hex')}`);
  });

  it('makes secrets of 32 random bytes, whsec_-prefixed base64', () => {
    const a = newWebhookSecret();
    expect(a).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardSigningKey(a)).to.have.length(32);
    expect(newWebhookSecret()).not.to.equal(a);
    expect(() => standardSigningKey('MfKQ9r8')).to.throw(/whsec_/);
  });
});
