// Dredd hooks for the admin document: every transaction carries the server's admin token (run.sh
// starts it with CONTRACT_ADMIN_TOKEN). The documented path id is 1: the key the public run's
// hooks created; the document orders its paths so that it is rotated, reported on and changed
// before the last transaction revokes it. Error answers are driven by the integration tests.
const hooks = require('hooks');

hooks.beforeEach((transaction, done) => {
  if (!String(transaction.expected.statusCode).startsWith('2')) {
    transaction.skip = true;
    return done();
  }
  // No job has run in the contract run, so no webhook delivery exists to replay: the integration
  // tests (test/integration/admin-webhooks.test.ts) drive the replay.
  if (transaction.fullPath.startsWith('/admin/v1/webhook-deliveries/')) {
    transaction.skip = true;
    return done();
  }
  transaction.request.headers.Authorization = `Bearer ${process.env.CONTRACT_ADMIN_TOKEN}`;
  // An audit entry's before and after hold only what its change touched (a rotation: the prefix),
  // where Dredd's OAS3 adapter expects every documented key of its generated example.
  if (transaction.expected.body && new URL(transaction.fullPath, 'http://x').pathname === '/admin/v1/audit') {
    const body = JSON.parse(transaction.expected.body);
    for (const entry of body.items ?? []) {
      entry.before = {};
      entry.after = {};
    }
    transaction.expected.body = JSON.stringify(body);
  }
  done();
});

// Dredd compares media types literally; the server adds "; charset=utf-8".
hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real.headers;
  if (headers['content-type']) headers['content-type'] = headers['content-type'].split(';')[0].trim();
  done();
});
