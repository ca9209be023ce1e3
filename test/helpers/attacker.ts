import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ATTACKS = fileURLToPath(new URL('./attacks/', import.meta.url));

/**
 * Runs an attack (a module of `test/helpers/attacks/`) in a process of its own at the lowest CPU
 * priority, and resolves with what it printed as its result. On a 2-core machine a test that
 * drives hundreds of sockets from its own process takes the CPU from the server it measures; a
 * real attacker is on another machine. Niced, the attack still sends everything it sends, but
 * the server and the prober come first. The process is the test's own, ended by its pid.
 */
export function runAttack<T>(name: string, params: unknown, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '19', process.execPath, '--import', 'tsx', `${ATTACKS}${name}.ts`, JSON.stringify(params)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`attack ${name} exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
      } catch {
        reject(new Error(`attack ${name} printed no result: ${out}${err}`));
      }
    });
  });
}
