import { expect } from 'chai';
import type { Request } from 'express';
import { batchStatusUrl, publicBase } from '../../../src/http/firecrawl/public-base.js';
import { IpAllowList } from '../../../src/ip/ip-allow-list.js';

function request(part: { host?: string; encrypted?: boolean; peer?: string; forwardedProto?: string; trusted?: string[] }): Request {
  const headers: Record<string, string> = {};
  if (part.host !== undefined) headers.host = part.host;
  if (part.forwardedProto !== undefined) headers['x-forwarded-proto'] = part.forwardedProto;
  return {
    headers,
    get: (name: string) => headers[name.toLowerCase()],
    socket: { encrypted: part.encrypted, remoteAddress: part.peer ?? '198.51.100.7', localAddress: '127.0.0.1', localPort: 8080 },
    app: { trustedProxies: IpAllowList.of(part.trusted ?? []) },
  } as unknown as Request;
}

/** Where links to a job's results start: PUBLIC_BASE_URL, else the request's trusted scheme and its host. */
describe('publicBase and the status URLs built on it', () => {
  it('PUBLIC_BASE_URL wins, prefix and all', () => {
    expect(publicBase(request({ host: 'evil.example' }), 'https://api.example.com/scrape')).to.equal('https://api.example.com/scrape');
  });

  it('https over TLS, or from a trusted proxy saying so; http otherwise, whatever an untrusted peer says', () => {
    expect(publicBase(request({ host: 'api.example.com', encrypted: true }), undefined)).to.equal('https://api.example.com');
    expect(publicBase(request({ host: 'api.example.com', peer: '10.0.0.2', forwardedProto: 'https', trusted: ['10.0.0.2'] }), undefined)).to.equal('https://api.example.com');
    expect(publicBase(request({ host: 'api.example.com', forwardedProto: 'https' }), undefined)).to.equal('http://api.example.com');
  });

  it('a Host that is no host is not used: the socket\'s own address is', () => {
    expect(publicBase(request({ host: 'a b/c' }), undefined)).to.equal('http://127.0.0.1:8080');
    expect(publicBase(request({}), undefined)).to.equal('http://127.0.0.1:8080');
  });

  it('next keeps the caller\'s limit, and only when it gave one', () => {
    expect(batchStatusUrl('https://x', 'a/b', { skip: 100, limit: 10 })).to.equal('https://x/v2/batch/scrape/a%2Fb?skip=100&limit=10');
    expect(batchStatusUrl('https://x', 'id', { skip: 100, limit: undefined })).to.equal('https://x/v2/batch/scrape/id?skip=100');
    expect(batchStatusUrl('https://x', 'id')).to.equal('https://x/v2/batch/scrape/id');
  });
});
