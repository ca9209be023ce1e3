// The pages the browser benches render, served on loopback.
import http from 'node:http';

/** A JS page: 200 list items built by script. */
export const PAGE = `<!doctype html><html><head><title>bench</title></head><body><div id="app"></div><script>
  const ul = document.createElement('ul');
  for (let i = 0; i < 200; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i; ul.appendChild(li); }
  document.getElementById('app').appendChild(ul);
</script></body></html>`;

// The common case: a stylesheet, an image, and a timer still pending when the page has loaded.
const PENDING_PAGE = `<!doctype html><html><head><title>pending</title><link rel="stylesheet" href="/style.css"></head>
<body><h1 id="title">pending work</h1><img src="/img.png" width="10" height="10"><p>item 199</p>
<script>setTimeout(() => { document.getElementById('title').textContent = 'late'; }, 1500);</script></body></html>`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a45f0000000049454e44ae426082', 'hex');

export interface BenchTarget {
  pageUrl: string;
  pendingUrl: string;
  close(): void;
}

export async function startBenchTarget(): Promise<BenchTarget> {
  const target = http.createServer((req, res) => {
    if (req.url === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body { font-family: sans-serif; } h1 { color: #333; }');
    if (req.url === '/img.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(req.url === '/pending' ? PENDING_PAGE : PAGE);
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;
  return { pageUrl, pendingUrl: `${pageUrl}pending`, close: () => target.close() };
}
