import { expect } from 'chai';
import { StoreUnavailableError } from '../../src/billing/store-unavailable-error.js';
import { isDatabaseUnavailable, translated } from '../../src/store/driver-errors.js';

describe('isDatabaseUnavailable', () => {
  it('tells a database that cannot be reached from a statement that failed', () => {
    const fatal = (code: string) => Object.assign(new Error(code), { code, fatal: true });
    expect(isDatabaseUnavailable(fatal('ECONNREFUSED'))).to.equal(true);
    expect(isDatabaseUnavailable(fatal('PROTOCOL_CONNECTION_LOST'))).to.equal(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true }))).to.equal(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('shutdown'), { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }))).to.equal(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))).to.equal(true);
    const timeout = Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' });
    expect(isDatabaseUnavailable(timeout)).to.equal(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: fatal('ETIMEDOUT') }))).to.equal(true);
    // A statement's own failure is a bug, and a socket error of anything but the driver is not the database's.
    expect(isDatabaseUnavailable(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY', errno: 1062 }))).to.equal(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' }))).to.equal(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).to.equal(false);
    expect(isDatabaseUnavailable(new Error('bug'))).to.equal(false);
  });
});

describe('translated store adapters', () => {
  const lost = () => Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
  const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', fatal: true, syscall: 'connect' });

  it("answers a driver's unavailable database as the ports' StoreUnavailableError, saying whether a write may have run", async () => {
    const adapter = translated({
      async write(): Promise<void> {
        throw lost();
      },
      async read(): Promise<void> {
        throw refused();
      },
      sync(): number {
        throw refused();
      },
    });
    const written = await adapter.write().catch((err: unknown) => err);
    expect(written).to.be.instanceOf(StoreUnavailableError).and.include({ mayHaveRun: true });
    const read = await adapter.read().catch((err: unknown) => err);
    expect(read).to.be.instanceOf(StoreUnavailableError).and.include({ mayHaveRun: false });
    expect(() => adapter.sync()).to.throw(StoreUnavailableError);
  });

  it("leaves a statement's own error (a bug) as it is, and answers what works unchanged", async () => {
    const duplicate = Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' });
    const adapter = translated({
      value: 7,
      async fails(): Promise<void> {
        throw duplicate;
      },
      async works(): Promise<number> {
        return this.value;
      },
    });
    expect(await adapter.fails().catch((err: unknown) => err)).to.equal(duplicate);
    expect(await adapter.works()).to.equal(7);
  });
});
