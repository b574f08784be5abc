/**
 * What every MCP method receives for one POST: the app's dependencies, the caller (resolved on
 * first use, so initialize, ping and the list methods never touch credentials), and a place to
 * collect the RateLimit headers of a metered call for the HTTP response.
 */
import type { Caller, Reader } from "../../domain/access/credentials.ts";
import type { LayerSelector } from "../../domain/layers/select-layers.ts";
import type { AnonymousLimiter } from "../../domain/metering/anonymous-limit.ts";
import type { PresentedPayment } from "../../domain/payments/methods/payment-method.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import type { EncodedJson } from "./jsonrpc.ts";
import type { ToolSet } from "./tool-set.ts";

/** Per-app state of the MCP plugin, created once in `index.ts` (never module-level). */
export interface McpShared {
  deps: EdgeDeps;
  selector: LayerSelector;
  anonymous: AnonymousLimiter;
  /** Encoded tool results of prebuilt artifacts, by ETag (bounded; owned by the app). */
  results: ResultCache;
  /** The tools of this app's route table (`tools.ts`), listed once. */
  tools: ToolSet;
}

export interface ResultCache {
  get(etag: string): EncodedJson | undefined;
  set(etag: string, value: EncodedJson): void;
}

export interface McpContext extends McpShared {
  now: number;
  requestId: string;
  /** The caller's address for the anonymous limit; computed on first use (it reads every header). */
  client(): string;
  /** Resolves the presented credentials once; a bad key throws the REST 401 (`ApiError`). */
  caller(): Promise<Caller>;
  /** The caller when the credentials resolve, else anonymous (for keyless listings). */
  callerOrAnonymous(): Promise<Caller>;
  /** The caller as a reader of content (`RequestCaller.reader`): no promise when the key's record is cached. */
  reader(): Reader | Promise<Reader>;
  /** The raw key presented in X-Service-Key or Authorization: Bearer, if any. */
  presentedKey: string | null;
  /** RateLimit headers of the call, set when a key was metered (or a per-use payment's headers). */
  headers: Record<string, string>;
  /** The tool call's `_meta` (where a per-use payment travels over MCP). */
  toolMeta?: Record<string, unknown>;
  /** The per-use payment that pays for this call, when the call asked to pay (`paid-call.ts`). */
  payment?: PresentedPayment;
}
