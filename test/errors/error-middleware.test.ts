import { expect } from 'chai';
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ConflictError, LockedError } from '../../src/errors/api-error.js';
import { errorMiddleware } from '../../src/errors/error-middleware.js';
import { AntiBotDetectedError, TargetUnreachableError } from '../../src/errors/engine-errors.js';
import { translateEngineError } from '../../src/errors/translate-engine-error.js';

describe('errorMiddleware', () => {
  async function answer(thrown: unknown): Promise<{ status: number; body: unknown; logged: string }> {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (s: string) => void lines.push(s) });
    const app = express();
    app.get('/', () => {
      throw thrown;
    });
    app.use(errorMiddleware(logger, 1024));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      return { status: res.status, body: await res.json(), logged: lines.join('') };
    } finally {
      server.close();
    }
  }

  it('answers an ApiError with its status and detail', async () => {
    expect(await answer(new ConflictError('busy'))).to.include({ status: 409 }).and.deep.include({ body: { detail: 'busy' } });
  });

  it('answers anything unexpected with a bare 500 and logs it, leaking nothing', async () => {
    const { status, body, logged } = await answer(new Error('secret db password in /etc/x'));
    expect(status).to.equal(500);
    expect(body).to.deep.equal({ detail: 'Internal server error' });
    expect(logged).to.contain('secret db password');
  });
});

describe('translateEngineError', () => {
  it('never makes a target-side failure a 5xx', () => {
    expect(translateEngineError(new TargetUnreachableError('refused')).status).to.equal(404);
    expect(translateEngineError(new AntiBotDetectedError('Cloudflare', 'challenge'))).to.be.instanceOf(LockedError);
    expect(translateEngineError(new Error('bug')).status).to.equal(500);
  });
});
