/**
 * A burst as tight as one machine can send it: every socket is connected first, then every
 * request is written in the same turn, so the server reads them all before it answers any. (A
 * `fetch` loop spreads requests over many turns and can hide a read-then-write race.)
 */
import { connect, type Socket } from "node:net";

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends `count` requests at once; resolves the status of each, in order. */
export async function socketBurst(url: string, count: number, request: (i: number) => RawRequest): Promise<number[]> {
  const { port, hostname } = new URL(url);
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve(socket));
          socket.once("error", reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<number>((resolve, reject) => {
        let text = "";
        socket.on("data", (d) => (text += d));
        socket.once("error", reject);
        socket.once("close", () => {
          const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
          if (status) resolve(Number(status[1]));
          else reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        });
      }),
  );
  sockets.forEach((socket, i) => socket.write(_serialize(request(i), `${hostname}:${port}`)));
  return Promise.all(answers);
}

/** `{ status: count }` of a list of statuses. */
export function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

function _serialize(req: RawRequest, host: string): string {
  const body = req.body ?? "";
  const headers: Record<string, string> = { host, connection: "close", ...req.headers };
  if (body || req.method !== "GET") headers["content-length"] = String(Buffer.byteLength(body));
  return `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n${body}`;
}
