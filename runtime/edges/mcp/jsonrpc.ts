/**
 * The JSON-RPC 2.0 envelope as MCP's Streamable HTTP transport uses it: one message per POST (no
 * batches since 2025-06-18), requests answered with a result or an error, notifications and
 * client responses acknowledged with 202.
 */
import { type DeflatedPart, deflatePart, spliceDeflate } from "../../shared/http/deflate-splice.ts";
import { PartsBody } from "../../shared/http/parts-body.ts";

/** JSON-RPC error codes; -32001 is ours (see `McpAccessError` in the operation description). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Transport-level refusals (Host/Origin, headers, version) as the SDK reports them. */
  transport: -32000,
  /** resources/read was refused by the access matrix (data carries the problem). */
  accessDenied: -32001,
  /** resources/read of an unknown resource (2025 revisions; 2026-07-28 uses -32602). */
  resourceNotFound: -32002,
} as const;

export type RpcId = string | number;

const RAW_MARK = "\u0000vkr-raw:";
const RAW_RE = /"\\u0000vkr-raw:(\d+)"/g;

export type RpcMessage =
  /** `params` by position (an array) is a valid JSON-RPC request that no MCP method takes: -32602 at dispatch. */
  | { kind: "request"; id: RpcId; method: string; params: Record<string, unknown> | unknown[] }
  | { kind: "notification"; method: string }
  | { kind: "response" };

/** A JSON-RPC error raised by a method; anything else thrown becomes -32603. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** JSON text to embed as a value when a response is serialised (see `toJsonText`). */
export class RawJson {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

/**
 * `JSON.stringify` that embeds `RawJson` values as their text, so a prebuilt artifact is not
 * parsed and re-serialised per call (Node 20 has no `JSON.rawJSON`). Each is replaced by a
 * placeholder string that content cannot contain (it starts with a NUL), then spliced in.
 */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `${RAW_MARK}${raws.push(v.json) - 1}` : v));
  if (raws.length === 0) return text;
  return text.replace(RAW_RE, (_m, i: string) => raws[Number(i)]!);
}

/** A whole `result` already serialised to UTF-8 JSON (see `toResponseBody`). */
export class EncodedJson {
  readonly bytes: Uint8Array;
  #deflated: DeflatedPart | undefined;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  /** Compressed on first use, then kept with the cached result. */
  get deflated(): DeflatedPart {
    return (this.#deflated ??= deflatePart(this.bytes));
  }
}

/**
 * The response to request `id`: `result` serialised, or its encoded bytes between the envelope's
 * head and close (never copied), spliced into a deflate stream when the client accepts one.
 */
export function toResponseBody(id: RpcId, result: unknown, deflate: boolean): { body: PartsBody | string; encoding: "deflate" | null } {
  if (!(result instanceof EncodedJson)) return { body: toJsonText(rpcResult(id, result)), encoding: null };
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  if (deflate) return { body: new PartsBody(spliceDeflate(head, result.deflated, CLOSE)), encoding: "deflate" };
  return { body: new PartsBody([head, result.bytes, CLOSE]), encoding: null };
}

const CLOSE = Buffer.from("}");

export function rpcResult(id: RpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

/**
 * An error response. `id` is the request's whenever it could be read; otherwise it is left out:
 * JSON-RPC 2.0 asks for `null` there, but MCP's schema (`JSONRPCErrorResponse`, `id?: RequestId`)
 * never allows a null id, and MCP clients validate against it.
 */
export function rpcErrorBody(id: RpcId | undefined, code: number, message: string, data?: unknown) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return id === undefined ? { jsonrpc: "2.0" as const, error } : { jsonrpc: "2.0" as const, id, error };
}

/**
 * Classifies a parsed body; throws `RpcError` (-32600) for anything that is not one valid
 * JSON-RPC 2.0 message. The error's `data.id` carries the request id when it could be read.
 */
export function readMessage(value: unknown): RpcMessage {
  if (Array.isArray(value)) throw new RpcError(RPC.invalidRequest, "Batching is not supported: send one JSON-RPC message per POST.");
  if (value === null || typeof value !== "object")
    throw new RpcError(RPC.invalidRequest, "Invalid Request: the body must be a JSON-RPC 2.0 object.");
  const m = value as Record<string, unknown>;
  const id = _readId(m);
  if (m.jsonrpc !== "2.0") throw new RpcError(RPC.invalidRequest, `Invalid Request: "jsonrpc" must be "2.0".`, { id });
  if (!("method" in m)) {
    // A response from the client (to a server request we never send): acknowledged, ignored.
    if (id !== undefined && ("result" in m || "error" in m)) return { kind: "response" };
    throw new RpcError(RPC.invalidRequest, `Invalid Request: "method" is missing.`, { id });
  }
  if (typeof m.method !== "string" || m.method === "")
    throw new RpcError(RPC.invalidRequest, `Invalid Request: "method" must be a non-empty string.`, { id });
  if ("id" in m && id === undefined) throw new RpcError(RPC.invalidRequest, `Invalid Request: "id" must be a string or an integer.`);
  // JSON-RPC allows params by name (an object) or by position (an array); anything else is no request.
  if (m.params !== undefined && (m.params === null || typeof m.params !== "object")) {
    throw new RpcError(RPC.invalidRequest, `Invalid Request: "params" must be an object.`, { id });
  }
  if (id === undefined) return { kind: "notification", method: m.method };
  return { kind: "request", id, method: m.method, params: (m.params as Record<string, unknown> | unknown[] | undefined) ?? {} };
}

// --- Internal helpers ---

function _readId(m: Record<string, unknown>): RpcId | undefined {
  const id = m.id;
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isInteger(id)) return id;
  return undefined;
}
