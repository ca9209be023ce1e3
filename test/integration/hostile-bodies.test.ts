import { expect } from 'chai';
import { runAttack } from '../helpers/attacker.js';
import type { RawUploads, Upload } from '../helpers/attacks/raw-uploads.js';
import { testDatabases } from '../helpers/databases.js';
import { HealthProber, rssMb } from '../helpers/health-prober.js';
import { useSuite } from '../helpers/suite.js';

const TEN_MIB = 10 * 1024 * 1024;

/**
 * Nothing of a body is held before its caller is known, and what callers with a key may hold at
 * once is bounded: the attacks of the hostile-input issue, run against the real server while a
 * prober measures /healthz and the server's memory.
 */
const uploads = (attack: RawUploads) => runAttack<Upload[]>('raw-uploads', attack);

describe('hostile request bodies', function () {
  this.timeout(120_000);
  // A budget of 32 MiB: three bodies of 10 MiB at once.
  const s = useSuite(testDatabases()[0], { MAX_BUFFERED_BODY_BYTES: String(32 * 1024 * 1024) });
  let key: string;
  let baselineMb: number;
  before(async () => {
    key = await s.store.key();
    baselineMb = rssMb(s.server.pid);
  });

  it('300 keyless uploads of 10 MiB − 1 held open get 422 at once, and the server buffers none of them', async () => {
    // The connections open over 1.5 s, as a client's pool opens them; each then writes its body at
    // 12.5 MiB/s (which would fill the old server with the 3 GB of all of them within a second).
    const prober = new HealthProber(s.server.base, s.server.pid);
    const target = encodeURIComponent(s.target.url('/echo'));
    const head = `POST /v2/general?url=${target}&browser=false HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n`;
    const sent = await uploads({ port: s.server.port, head, count: 300, declared: TEN_MIB - 1, shortBy: 1, holdMs: 20_000, spreadMs: 1_500, paceMs: 20 });
    const report = await prober.stop();
    expect(sent.map((u) => u.status).filter((status) => status !== 422), 'answers other than 422').to.deep.equal([]);
    expect(Math.max(...sent.map((u) => u.elapsedMs)), 'slowest answer (ms)').to.be.below(10_000);
    expect(report.p99Ms, '/healthz p99 (ms)').to.be.below(200);
    expect(report.worstMs, '/healthz worst (ms)').to.be.below(1_000);
    // Whatever a socket's buffers held on the way, nothing like the 3 GB of the bodies.
    expect(report.peakRssMb - baselineMb, `RSS growth (MB; baseline ${Math.round(baselineMb)})`).to.be.below(150);
  });

  it('20 keyless v1 POSTs of a 10 MB JSON body are refused before a byte of JSON is parsed', async () => {
    const prober = new HealthProber(s.server.base, s.server.pid);
    const head = 'POST /v1/general HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
    const sent = await uploads({ port: s.server.port, head, count: 20, declared: 10_000_000, shortBy: 0, holdMs: 20_000 });
    const report = await prober.stop();
    for (const u of sent) {
      expect(u.status).to.equal(422);
      expect(JSON.parse(u.body)).to.deep.equal({ detail: [{ loc: ['body'], msg: 'the request body exceeds 262144 bytes', type: 'value_error.body.too_large' }] });
    }
    expect(report.p99Ms, '/healthz p99 (ms)').to.be.below(100);
    expect(report.worstMs, '/healthz worst (ms)').to.be.below(1_000);
  });

  it('v1 takes its key from a small JSON body as before', async () => {
    const res = await fetch(`${s.server.base}/v1/general`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: s.target.url('/page'), browser: false, 'x-api-key': key }) });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { status_code: number }).status_code).to.equal(200);
  });

  it('a wrong key is a 403 before the body is read; a missing one a 422', async () => {
    const target = encodeURIComponent(s.target.url('/echo'));
    const wrong = (await uploads({ port: s.server.port, head: `PUT /v2/general?url=${target}&browser=false&x-api-key=sg_nobody HTTP/1.1\r\nHost: x\r\n`, count: 1, declared: TEN_MIB - 1, shortBy: 1, holdMs: 20_000 }))[0];
    expect(wrong.status).to.equal(403);
    const missing = (await uploads({ port: s.server.port, head: `PUT /v2/general?url=${target}&browser=false HTTP/1.1\r\nHost: x\r\n`, count: 1, declared: TEN_MIB - 1, shortBy: 1, holdMs: 20_000 }))[0];
    expect(missing.status).to.equal(422);
    expect(s.target.requestsTo('/echo').filter((r) => r.method === 'PUT')).to.deep.equal([]);
  });

  it('with a key, the bodies held at once stay within MAX_BUFFERED_BODY_BYTES: the rest get 429, and a stalled one is cut', async () => {
    const prober = new HealthProber(s.server.base, s.server.pid);
    const target = encodeURIComponent(s.target.url('/echo'));
    const head = `POST /v2/general?url=${target}&browser=false&x-api-key=${key} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
    const sent = await uploads({ port: s.server.port, head, count: 40, declared: TEN_MIB - 1, shortBy: 1, holdMs: 30_000 });
    const report = await prober.stop();
    console.log(`      /healthz p99 ${report.p99Ms.toFixed(0)} ms, worst ${report.worstMs.toFixed(0)} ms in ${report.probes} probes; RSS peak ${Math.round(report.peakRssMb)} MB`);
    const byStatus = new Map<number | undefined, number>();
    for (const u of sent) byStatus.set(u.status, (byStatus.get(u.status) ?? 0) + 1);
    // Three fit the budget: each waits for its last byte and is cut when none comes (400).
    expect(Object.fromEntries(byStatus)).to.deep.equal({ 400: 3, 429: 37 });
    const cut = sent.filter((u) => u.status === 400);
    for (const u of cut) expect(u.elapsedMs, 'a stalled body is cut after 10 s without a byte').to.be.within(9_000, 20_000);
    // The loop stays free while 400 MB arrive: the p99 of some 440 probes. The slowest one alone
    // is a sample of one on a machine whose two cores also carry the test's own 400 MB of writes
    // (47–111 ms run alone, 206 ms once in a full suite), so in this file it is held only against
    // a real stall.
    expect(report.p99Ms, '/healthz p99 (ms)').to.be.below(200);
    expect(report.worstMs, '/healthz worst (ms)').to.be.below(1_000);
    expect(report.peakRssMb - baselineMb, `RSS growth (MB; baseline ${Math.round(baselineMb)})`).to.be.below(200);
    // The budget is given back: a body that fits is taken again.
    const res = await fetch(`${s.server.base}/v2/general?url=${target}&browser=false&x-api-key=${key}`, { method: 'POST', body: 'after the attack' });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { body: string }).body).to.equal('after the attack');
  });

  it('a chunked body past MAX_REQUEST_BODY_BYTES is cut at the limit', async () => {
    const target = encodeURIComponent(s.target.url('/echo'));
    const big = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 12; i++) controller.enqueue(new Uint8Array(1024 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${s.server.base}/v2/general?url=${target}&browser=false&x-api-key=${key}`, { method: 'POST', body: big, duplex: 'half' } as RequestInit);
    expect(res.status).to.equal(422);
    expect(await res.json()).to.deep.equal({ detail: [{ loc: ['body'], msg: `the request body exceeds ${TEN_MIB} bytes`, type: 'value_error.body.too_large' }] });
  });
});
