// Dredd hooks for the Firecrawl document: a real key on the server's database, a local target,
// and each body's URLs pointed at it. The batch's own transactions read the id its start
// answered. A server without a job engine answers batches 503: they are skipped then (the edge
// tests drive them over the job port in memory). Error answers are driven by the tests.
const hooks = require('hooks');
const http = require('node:http');
const { execFileSync } = require('node:child_process');

let apiKey = '';
let target;
let batchId;
let crawlId;
let batches = true;

hooks.beforeAll((transactions, done) => {
  const out = execFileSync('node', ['scripts/scrapegate.js', 'keys', 'create', '--plan', 'business', '--name', 'dredd-firecrawl'], { encoding: 'utf8' });
  apiKey = out.trimEnd().split('\n').pop();
  target = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><head><title>contract</title></head><body><h1>contract target</h1><a href="/x">x</a></body></html>'));
  });
  target.listen(0, '127.0.0.1', () => {
    // Whether the server runs a job engine: a server without one answers batches 503.
    const body = JSON.stringify({ urls: [targetUrl('/probe')] });
    const probe = http.request(`${process.env.CONTRACT_SERVER_URL}/v2/batch/scrape`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      batches = res.statusCode === 200;
      done();
    });
    probe.on('error', () => {
      batches = false;
      done();
    });
    probe.end(body);
  });
});

hooks.afterAll((transactions, done) => {
  target.closeAllConnections();
  target.close(() => done());
});

const targetUrl = (path) => `http://127.0.0.1:${target.address().port}${path}`;

hooks.beforeEach((transaction, done) => {
  if (!String(transaction.expected.statusCode).startsWith('2')) {
    transaction.skip = true;
    return done();
  }
  transaction.request.headers.Authorization = `Bearer ${apiKey}`;
  const path = new URL(transaction.fullPath, 'http://x').pathname;
  if (path === '/v2/scrape') {
    transaction.request.body = JSON.stringify({ url: targetUrl('/page'), formats: ['markdown', 'links'] });
    // Dredd expects every documented key: only those this page and these formats have are.
    const expected = JSON.parse(transaction.expected.body);
    const { sourceURL, url, statusCode, contentType, title, favicon, proxyUsed, cacheState, creditsUsed, scrapeId } = expected.data.metadata;
    expected.data = { markdown: expected.data.markdown, links: expected.data.links, metadata: { sourceURL, url, statusCode, contentType, title, favicon, proxyUsed, cacheState, creditsUsed, scrapeId } };
    transaction.expected.body = JSON.stringify(expected);
  } else if (path === '/v2/batch/scrape') {
    if (!batches) transaction.skip = true;
    transaction.request.body = JSON.stringify({ urls: [targetUrl('/a'), targetUrl('/b')], formats: ['markdown'] });
  } else if (path.startsWith('/v2/batch/scrape/')) {
    if (!batches || batchId === undefined) transaction.skip = true;
    else {
      transaction.fullPath = transaction.fullPath.replace(/\/v2\/batch\/scrape\/[^/?]+/, `/v2/batch/scrape/${batchId}`);
      transaction.request.uri = transaction.fullPath;
      // `next` is there only while more finished documents exist than a page holds: two do not.
      const expected = transaction.expected.body ? JSON.parse(transaction.expected.body) : undefined;
      if (expected && 'next' in expected) {
        delete expected.next;
        transaction.expected.body = JSON.stringify(expected);
      }
    }
  } else if (path === '/v2/crawl' || path === '/v2/crawl/active') {
    // Crawls run on the job engine as batches do: a crawl of the local target, two pages at most.
    if (!batches) transaction.skip = true;
    if (path === '/v2/crawl') transaction.request.body = JSON.stringify({ url: targetUrl('/'), limit: 2, sitemap: 'skip' });
  } else if (path.startsWith('/v2/crawl/')) {
    if (!batches || crawlId === undefined) transaction.skip = true;
    else {
      transaction.fullPath = transaction.fullPath.replace(/\/v2\/crawl\/[^/?]+/, `/v2/crawl/${crawlId}`);
      transaction.request.uri = transaction.fullPath;
      const expected = transaction.expected.body ? JSON.parse(transaction.expected.body) : undefined;
      if (expected && 'next' in expected) {
        delete expected.next;
        transaction.expected.body = JSON.stringify(expected);
      }
    }
  } else if (path === '/v2/map') {
    transaction.request.body = JSON.stringify({ url: targetUrl('/'), limit: 10, timeout: 10000 });
    // The target's pages have a title and no description: the start page's link is listed first.
    const expected = JSON.parse(transaction.expected.body);
    expected.links = [{ url: expected.links[0].url, title: expected.links[0].title }];
    transaction.expected.body = JSON.stringify(expected);
  }
  done();
});

hooks.after('/v2/crawl > Start a crawl > 200 > application/json', (transaction, done) => {
  if (transaction.real && transaction.real.statusCode === 200) crawlId = JSON.parse(transaction.real.body).id;
  done();
});

hooks.after('/v2/batch/scrape > Start a batch scrape > 200 > application/json', (transaction, done) => {
  if (transaction.real && transaction.real.statusCode === 200) batchId = JSON.parse(transaction.real.body).id;
  done();
});

hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real.headers;
  if (headers['content-type']) headers['content-type'] = headers['content-type'].split(';')[0].trim();
  done();
});
