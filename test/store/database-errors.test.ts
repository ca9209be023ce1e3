import { expect } from 'chai';
import { isDatabaseUnavailable } from '../../src/store/database-errors.js';

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
