/** A tiny JSON HTTP server on a free loopback port, the base of every payment stand-in. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface StandInReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface StandInServer {
  url: string;
  close(): Promise<void>;
}

export async function startStandIn(
  handle: (req: StandInRequest) => Promise<StandInReply | null> | StandInReply | null,
): Promise<StandInServer> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://stand-in");
    const reply = await handle({
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    if (reply === null) return; // hang: never answer
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
