import { expect } from 'chai';
import type { JobEvent } from '../../src/jobs/job-ports.js';
import { MAX_PAYLOAD_BYTES, webhookPayload } from '../../src/webhooks/webhook-payload.js';

const metadata = { sourceURL: 'https://a.example/', url: 'https://a.example/', statusCode: 200, proxyUsed: 'basic' as const, creditsUsed: 1, scrapeId: 'item-1' };

function event(over: Partial<JobEvent> = {}): JobEvent {
  return {
    apiKeyId: 1,
    jobId: 'job-1',
    kind: 'batch_scrape',
    subscription: { url: 'http://127.0.0.1/hook', headers: {}, metadata: { order: '42' }, events: ['started', 'page', 'completed', 'failed'] },
    type: 'page',
    data: [{ markdown: '# A', metadata }],
    ...over,
  };
}

describe('webhook payload', () => {
  it("is Firecrawl's: success, kind.type, the job id, the webhook id, the data and the subscription's metadata", () => {
    expect(JSON.parse(webhookPayload(event(), 'msg_1'))).to.deep.equal({
      success: true, type: 'batch_scrape.page', id: 'job-1', webhookId: 'msg_1', data: [{ markdown: '# A', metadata }], metadata: { order: '42' },
    });
    expect(JSON.parse(webhookPayload(event({ kind: 'crawl', type: 'failed', data: [], error: 'boom' }), 'msg_2'))).to.deep.equal({
      success: false, type: 'crawl.failed', id: 'job-1', webhookId: 'msg_2', data: [], metadata: { order: '42' }, error: 'boom',
    });
  });

  it('keeps a huge document out of the body, with its metadata and a warning naming where to read it', () => {
    const body = webhookPayload(event({ data: [{ rawHtml: 'x'.repeat(MAX_PAYLOAD_BYTES + 10), metadata }] }), 'msg_3');
    expect(Buffer.byteLength(body)).to.be.below(10_000);
    const parsed = JSON.parse(body) as { data: Array<Record<string, unknown>> };
    expect(parsed.data[0].metadata).to.deep.equal(metadata);
    expect(parsed.data[0].rawHtml).to.equal(undefined);
    expect(parsed.data[0].warning).to.match(/too large for a webhook.*GET \/v2\/batch\/scrape\/job-1/);
  });

  it('drops the documents when even their metadata is too large, and says so', () => {
    const body = webhookPayload(event({ data: [{ metadata: { ...metadata, title: 't'.repeat(MAX_PAYLOAD_BYTES) } }] }), 'msg_4');
    expect(Buffer.byteLength(body)).to.be.below(10_000);
    expect(JSON.parse(body)).to.include({ type: 'batch_scrape.page' }).and.have.property('error').that.matches(/too large/);
    expect(JSON.parse(body)).to.have.property('data').that.deep.equals([]);
  });
});
