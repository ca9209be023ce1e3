import type { IncomingMessage } from 'node:http';
import type { TargetServer } from './target-server.js';

const html = (body: string, head = '') => `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** Pages whose behaviour the browser engine must handle, added to a recording target server. */
export function addBrowserPages(t: TargetServer): { upgrades: IncomingMessage[] } {
  const send = (body: string, headers: Record<string, string | string[]> = {}) => (_req: unknown, res: import('node:http').ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

  t.route('/js-page', send(
    html(
      `<div id="app">loading</div><img src="/img.png"><iframe src="/frame"></iframe>
       <script>
         document.cookie = 'from_js=yes; path=/';
         setTimeout(() => { document.getElementById('app').innerHTML = '<p id="late">rendered late</p>'; }, 300);
         fetch('/api/data', { method: 'POST', body: 'q=1' }).then(r => r.text()).then(t => { document.body.dataset.api = t; });
         const x = new XMLHttpRequest(); x.open('GET', '/api/xhr'); x.send();
       </script>`,
      '<link rel="stylesheet" href="/style.css"><script src="/app.js"></script>',
    ),
    { 'x-target': 'browser', 'set-cookie': 'server_cookie=1; Path=/' },
  ));
  t.route('/frame', send(html('<b>inside the frame</b>')));
  // A text track loads once its track is showing; the page says when it has settled either way.
  t.route('/track-page', send(html(
    `<video id="v" src="/clip.webm"><track id="t" kind="captions" src="/captions.vtt" default></video>
     <script>
       const t = document.getElementById('t');
       t.track.mode = 'showing';
       const done = () => { const p = document.createElement('p'); p.id = 'done'; document.body.appendChild(p); };
       t.addEventListener('load', done); t.addEventListener('error', done); setTimeout(done, 1500);
     </script>`,
  )));
  t.route('/captions.vtt', (_req, res) => void res.writeHead(200, { 'content-type': 'text/vtt' }).end('WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n'));
  t.route('/img.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex')));
  t.route('/style.css', (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('body { color: black; }'));
  t.route('/app.js', (_req, res) => void res.writeHead(200, { 'content-type': 'application/javascript' }).end('window.appLoaded = true;'));
  t.route('/api/data', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json', 'x-api': 'data' }).end('{"answer":42}'));
  t.route('/api/xhr', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('xhr-body'));

  t.route('/raw-source', send(html('<div id="x">raw</div><script>document.getElementById("x").textContent = "changed";</script>')));
  t.route('/json', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  t.route('/clicker', send(html(
    `<button id="go" onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'clicked'; p.textContent = 'clicked!'; document.body.appendChild(p); }, 100)">go</button>`,
  )));
  t.route('/never-finishes', send(html('<p id="partial">partial content</p><img src="/hang">')));
  t.route('/echo-page', (req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(`<pre id="echo">${req.method} ${body.toString('utf8')} ${req.headers['x-custom'] ?? ''} ${req.headers['content-type'] ?? ''}</pre>`));
  });
  // The page says when its socket has ended either way, so a test waits for that and not for luck:
  // the handshake may reach the server after the load event.
  t.route('/websocket-page', send(html(
    `<p>ws</p><script>
       const done = () => { if (!document.getElementById('ws-done')) { const p = document.createElement('p'); p.id = 'ws-done'; document.body.appendChild(p); } };
       try { const ws = new WebSocket("ws://" + location.host + "/ws"); ws.onclose = done; ws.onerror = done; } catch (e) { done(); }
     </script>`,
  )));

  t.route('/isolation-write', send(html(
    `<script>
       localStorage.setItem('leak', 'local'); sessionStorage.setItem('leak', 'session');
       document.cookie = 'leak=cookie; path=/';
       setInterval(() => { localStorage.setItem('leak', 'timer'); }, 20);
     </script><img src="/cacheable.png"><p>written</p>`,
  )));
  t.route('/isolation-leave', send(html(
    `<script>
       addEventListener('pagehide', () => { localStorage.setItem('leak', 'pagehide'); document.cookie = 'leak=pagehide; path=/'; });
     </script><p>leaving</p>`,
  )));
  // Writes as fast as it can until it is stopped: writes still on their way when the page stops
  // must not land after the wipe. The second variant is left by navigating away (leave handlers).
  const flood = (leave: string) => send(html(
    `<script>${leave}
       let i = 0; const channel = new MessageChannel();
       channel.port1.onmessage = () => {
         i++; localStorage.setItem('leak', 'flood' + i); sessionStorage.setItem('leak', 'flood' + i);
         for (let c = 0; c < 10; c++) document.cookie = 'leak=flood' + i + '; path=/';
         channel.port2.postMessage(0);
       };
       channel.port2.postMessage(0);
     </script><p>flooding</p>`,
  ));
  t.route('/isolation-flood', flood(''));
  t.route('/isolation-flood-leave', flood(`addEventListener('pagehide', () => { document.cookie = 'leak=pagehide; path=/'; });`));
  t.route('/cacheable.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'public, max-age=3600' }).end(Buffer.from('89504e470d0a1a0a', 'hex')));
  t.route('/isolation-read', send(html(
    `<img src="/cacheable.png"><script>
       document.body.insertAdjacentHTML('beforeend', '<p id="seen">' + JSON.stringify({
         local: localStorage.getItem('leak'), session: sessionStorage.getItem('leak'), cookie: document.cookie,
       }) + '</p>');
     </script>`,
  )));

  const upgrades: IncomingMessage[] = [];
  t.onUpgrade((req) => upgrades.push(req));
  return { upgrades };
}
