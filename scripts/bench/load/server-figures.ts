// What the server's own output says of the run: the costs its access log charged (a second count
// beside the credits), its error lines, the sessions it retired, and why it ended if it did.
import type { ServerProcess } from '../../../test/helpers/server-process.js';

export interface ServerFigures {
  accessLogCost: number;
  serverErrorLines: string[];
  /** The server's last output lines when it ended during the run. */
  serverOutputTail: string[];
  retiredSessions: number;
}

export function serverFigures(server: Pick<ServerProcess, 'logs' | 'rawOutput'>, upAfterLoad: boolean): ServerFigures {
  const requestLines = server.logs.filter((l) => l.msg === 'request');
  const accessLogCost = requestLines.filter((l) => l.status === 200).reduce((s, l) => s + Number(l.cost ?? 0), 0);
  const serverErrorLines = server.logs.filter((l) => (l.level ?? 0) >= 50).map((l) => JSON.stringify(l).slice(0, 400));
  // What the server said last, besides its access log: why it ended, if it did.
  const serverOutputTail = upAfterLoad ? [] : server.rawOutput.filter((l) => !l.includes('"msg":"request"')).slice(-30).map((l) => l.slice(0, 600));
  const retiredSessions = server.logs.filter((l) => l.msg === 'browser session retired').length;
  return { accessLogCost, serverErrorLines, serverOutputTail, retiredSessions };
}
