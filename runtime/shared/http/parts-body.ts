/**
 * A response body sent as several buffers that are never joined: a cached MCP result between the
 * per-request JSON-RPC head (`{"jsonrpc":"2.0","id":…,"result":`) and its closing brace.
 *
 * Joining them copied the whole answer into a freshly allocated buffer on every call; with a
 * 34 KiB get_node answer the copy and the allocation's page faults were about a quarter of an
 * MCP call's CPU (profile under wrk, 64 connections). srvx passes a body that has `pipe` the Node
 * response as it does a Node stream; the parts go out corked, in one writev, without a copy.
 */
import type { ServerResponse } from "node:http";

export class PartsBody {
  readonly parts: readonly Uint8Array[];
  readonly byteLength: number;

  constructor(parts: readonly Uint8Array[]) {
    this.parts = parts;
    this.byteLength = parts.reduce((n, p) => n + p.byteLength, 0);
  }

  /** Called by srvx with the Node response, after the status and headers are set. */
  pipe(res: ServerResponse): ServerResponse {
    res.cork();
    for (const part of this.parts) res.write(part);
    res.end();
    res.uncork();
    return res;
  }

  /** For a web `Response` (undici reads async-iterable bodies), should the app be served through fetch. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    yield* this.parts;
  }
}
