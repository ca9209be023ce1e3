// Preloaded into a server a bench starts (BENCH_PROFILE=<dir>): a CPU profile of its main thread
// from start to exit, written as <dir>/server-<pid>.cpuprofile. `--cpu-prof` is refused in
// NODE_OPTIONS, and a bench's server runs through ServerProcess, which takes preloads.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  // A same-thread session answers synchronously, so the profile can be written on the way out.
  process.on('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `server-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
