import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../helpers/databases.js';
import { ServerProcess } from '../helpers/server-process.js';

const FAULT = fileURLToPath(new URL('../fixtures/process/fault-on-signal.ts', import.meta.url));

/**
 * Errors are caught where they arise; one that still reaches the process level is logged with
 * its cause, and the process exits non-zero, so that its supervisor starts a clean one.
 */
describe('an error that reaches the process level', function () {
  this.timeout(60_000);

  for (const fault of ['throw', 'reject']) {
    it(`(${fault}) is logged with its cause, and the process exits non-zero for its supervisor`, async () => {
      const server = await new ServerProcess({ DATABASE_URL: testDatabases()[0].freshUrl(), BROWSER_POOL_SIZE: '0', FAULT: fault }, [FAULT]).start();
      const exited = server.exitCode();
      process.kill(server.pid, 'SIGUSR2');
      expect(await exited).to.equal(70);
      const fatal = await server.logLine('uncaught error: exiting for the supervisor to restart the service');
      expect(fatal.level).to.equal(60);
      expect(JSON.stringify(fatal.err)).to.contain(fault === 'throw' ? 'a deliberate uncaught exception' : 'a deliberate unhandled rejection');
    });
  }
});
