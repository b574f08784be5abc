/**
 * Redis MONITOR read over a plain socket. ioredis's `monitor()` switches its connection to
 * "monitoring" in a promise callback after the +OK, so when the +OK and the first monitored command
 * arrive in one TCP chunk (a busy shared Redis) it parses that line as a reply to nothing and
 * throws "Command queue state error". Here the +OK and the monitor lines are read from one stream
 * in order, so there is no window.
 */
import { connect, type Socket } from "node:net";

export interface MonitoredCommand {
  /** `lua` for a command a script ran, else the client's address. */
  source: string;
  args: string[];
}

export interface RedisMonitor {
  close(): void;
}

/** Starts MONITOR on `url` and resolves once Redis has acknowledged it. */
export async function monitorRedis(url: string, onCommand: (command: MonitoredCommand) => void): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port || 6379) });
  socket.setEncoding("utf8");
  let pending = "";
  let acknowledged = false;
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("data", (chunk: string) => {
      pending += chunk;
      let end = pending.indexOf("\r\n");
      while (end >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (!acknowledged) {
          if (line !== "+OK") return reject(new Error(`MONITOR refused: ${line}`));
          acknowledged = true;
          resolve();
        } else if (line.startsWith("+")) {
          const parsed = parseMonitorLine(line.slice(1));
          if (parsed) onCommand(parsed);
        }
        end = pending.indexOf("\r\n");
      }
    });
    socket.write("MONITOR\r\n");
  });
  return { close: () => socket.destroy() };
}

/** `1795875228.707531 [0 127.0.0.1:59460] "get" "k"` → source and arguments, unescaped. */
export function parseMonitorLine(line: string): MonitoredCommand | undefined {
  const open = line.indexOf("[");
  const close = line.indexOf("]", open);
  if (open < 0 || close < 0) return undefined;
  const source = line.slice(open + 1, close).split(" ")[1] ?? "";
  const args: string[] = [];
  let i = close + 1;
  while (i < line.length) {
    if (line[i] !== '"') {
      i++;
      continue;
    }
    let arg = "";
    i++;
    while (i < line.length && line[i] !== '"') {
      if (line[i] === "\\" && i + 1 < line.length) {
        const next = line[i + 1]!;
        if (next === "x") {
          arg += String.fromCharCode(Number.parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
          continue;
        }
        arg += next === "n" ? "\n" : next === "r" ? "\r" : next === "t" ? "\t" : next;
        i += 2;
        continue;
      }
      arg += line[i];
      i++;
    }
    args.push(arg);
    i++;
  }
  return { source, args };
}
