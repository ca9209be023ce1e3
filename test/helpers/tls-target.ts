import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfSignedCert {
  key: Buffer;
  cert: Buffer;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS where a test wants it trusted. */
  certPath: string;
}

/** A certificate for 127.0.0.1 (or the names given, as `DNS:a.example,IP:…`), self-signed, made by openssl now. */
export function selfSignedCert(subjectAltName = 'IP:127.0.0.1'): SelfSignedCert {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', `subjectAltName=${subjectAltName}`, '-days', '1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), certPath: join(dir, 'cert.pem') };
}

/** The base64 SHA-256 of a certificate's public key, as Chromium's --ignore-certificate-errors-spki-list takes it. */
export function spkiHash(certPath: string): string {
  const key = execFileSync('openssl', ['x509', '-in', certPath, '-pubkey', '-noout']);
  const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: key });
  return createHash('sha256').update(der).digest('base64');
}

/** An https target on loopback whose certificate nobody trusts. */
export class UntrustedTlsTarget {
  private server: https.Server | undefined;
  requests = 0;
  port = 0;

  async start(): Promise<this> {
    this.server = https.createServer(selfSignedCert(), (_req, res) => {
      this.requests++;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>secret behind a bad certificate</p>');
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
