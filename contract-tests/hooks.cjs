// Dredd hooks: make a real key on the server's database, serve a local target, and point every
// transaction's `url` and `x-api-key` at them. Dredd checks only key presence on OAS3; the
// integration tests validate bodies against the schema.
const hooks = require('hooks');
const http = require('node:http');
const { execFileSync } = require('node:child_process');

let apiKey = '';
let target;

hooks.beforeAll((transactions, done) => {
  const out = execFileSync('node', ['scripts/scrapegate.js', 'keys', 'create', '--plan', 'business', '--name', 'dredd'], { encoding: 'utf8' });
  apiKey = out.trimEnd().split('\n').pop();
  target = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'contract=1; Path=/' });
      res.end('<html><body><h1>contract target</h1></body></html>');
    });
  });
  target.listen(0, '127.0.0.1', () => done());
});

hooks.afterAll((transactions, done) => {
  // Chromium keeps connections alive; close() alone would wait for them to time out.
  target.closeAllConnections();
  target.close(() => done());
});

hooks.beforeEach((transaction, done) => {
  // The OAS3 adapter makes a transaction per documented status; the error answers are driven
  // by the integration tests, which can provoke each one. Here the successes are checked.
  if (!String(transaction.expected.statusCode).startsWith('2')) {
    transaction.skip = true;
    return done();
  }
  const uri = new URL(transaction.fullPath, 'http://placeholder');
  if (uri.searchParams.has('x_api_key')) {
    uri.searchParams.delete('x_api_key');
    uri.searchParams.set('x-api-key', apiKey);
  }
  if (uri.searchParams.has('url')) uri.searchParams.set('url', `http://127.0.0.1:${target.address().port}/page`);
  if (process.env.CONTRACT_PLAIN_ONLY === 'true' && uri.pathname !== '/v2/usage') uri.searchParams.set('browser', 'false');
  // The documented extract_rules example makes general's body JSON, where Dredd expects the page
  // itself: general is checked as the raw answer here, extraction by the integration tests.
  if (uri.pathname === '/v2/general') uri.searchParams.delete('extract_rules');
  // Dredd requires every documented key and header: ask for the optional ones so they are there.
  if (uri.pathname === '/v2/extended') {
    if (process.env.CONTRACT_PLAIN_ONLY === 'true') dropExpectedKeys(transaction, ['screenshot']);
    else uri.searchParams.set('screenshot', 'true');
  }
  if (uri.pathname === '/v2/screenshot') {
    // Only a page taller than 16,384 px is answered with it.
    for (const name of Object.keys(transaction.expected.headers)) if (name.toLowerCase() === 'svc-screenshot-truncated') delete transaction.expected.headers[name];
    // One transaction per documented image type: each asks for its own.
    if (/jpeg/.test(transaction.expected.headers['Content-Type'] ?? '')) uri.searchParams.set('screenshot_format', 'jpeg');
  }
  transaction.fullPath = uri.pathname + uri.search;
  transaction.request.uri = transaction.fullPath;
  if (transaction.request.body && transaction.request.headers['Content-Type'] === 'application/json') {
    const body = JSON.parse(transaction.request.body);
    body['x-api-key'] = apiKey;
    body.url = `http://127.0.0.1:${target.address().port}/page`;
    if (process.env.CONTRACT_PLAIN_ONLY === 'true') body.browser = false;
    transaction.request.body = JSON.stringify(body);
  }
  done();
});

/** Keys the document marks optional, which Dredd's OAS3 adapter would otherwise require. */
function dropExpectedKeys(transaction, keys) {
  if (!transaction.expected.bodySchema) return;
  const schema = JSON.parse(transaction.expected.bodySchema);
  schema.required = (schema.required ?? []).filter((k) => !keys.includes(k));
  transaction.expected.bodySchema = JSON.stringify(schema);
}

// Dredd compares media types literally; the server adds "; charset=utf-8".
hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real.headers;
  if (headers['content-type']) headers['content-type'] = headers['content-type'].split(';')[0].trim();
  done();
});
