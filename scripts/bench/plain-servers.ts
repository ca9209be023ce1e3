// The bench's own servers, each run in a process of its own by plain.ts:
//   target <port>               a 2 KB HTML page on loopback
//   forwarder <port> <target>   the minimal Node http forwarder (keep-alive agent) to compare with
import http from 'node:http';

const [role, portArg, targetArg] = process.argv.slice(2);
const port = Number(portArg);

if (role === 'target') {
  const page = `<!doctype html><html><head><title>bench</title></head><body>${'<p>lorem ipsum dolor sit amet</p>'.repeat(60)}</body></html>`;
  http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)).listen(port, '127.0.0.1');
} else if (role === 'forwarder') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  http
    .createServer((req, res) => {
      const url = new URL(String(new URL(req.url ?? '/', 'http://x').searchParams.get('url')));
      http.get(url, { agent }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      }).on('error', () => res.writeHead(502).end());
    })
    .listen(port, '127.0.0.1');
  void targetArg;
} else {
  throw new Error(`unknown role ${role}`);
}
