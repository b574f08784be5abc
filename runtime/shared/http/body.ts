/**
 * Reading and validating JSON request bodies. Size is capped before parsing, the media type must
 * be JSON, nesting is bounded (json-depth.ts), and the TypeBox schema (the same declaration the OpenAPI description is built from)
 * decides what is valid; every failure is a 4xx problem, never a 500.
 */
import type { IncomingMessage } from "node:http";
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type ValueError, ValueErrorType } from "@sinclair/typebox/compiler";
import type { H3Event } from "h3";
import { type ApiError, apiError, type FieldError } from "../errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.ts";

export interface BodyValidator<T extends TSchema> {
  schema: T;
  parse(value: unknown): Static<T>;
}

/** Compiles once at start-up; the returned `parse` is the per-request fast path. */
export function compileValidator<T extends TSchema>(schema: T): BodyValidator<T> {
  const check = TypeCompiler.Compile(schema);
  return {
    schema,
    parse(value) {
      if (check.Check(value)) return value;
      const errors: FieldError[] = [];
      const seen = new Set<string>();
      for (const e of check.Errors(value)) {
        if (errors.length >= 20) break;
        const error = { pointer: e.path || "/", message: _readable(e) };
        // A union reports once per branch; one message per field is enough.
        if (seen.has(error.pointer)) continue;
        seen.add(error.pointer);
        errors.push(error);
      }
      throw apiError("validation_failed", {
        detail: errors
          .map((e) => `${e.pointer}: ${e.message}`)
          .slice(0, 3)
          .join("; "),
        errors,
      });
    },
  };
}

/**
 * TypeBox's messages name the schema construct ("Expected union value"); say what is allowed
 * instead: the values of an enumeration, the known parameters of an object.
 */
function _readable(e: ValueError): string {
  const schema = e.schema as { anyOf?: Array<{ const?: unknown }>; properties?: Record<string, unknown> };
  const choices = schema.anyOf?.every((branch) => branch.const !== undefined) ? schema.anyOf.map((branch) => String(branch.const)) : null;
  if (choices) return `must be one of ${choices.join(", ")} (got ${JSON.stringify(e.value)?.slice(0, 40)})`;
  if (e.type === ValueErrorType.ObjectAdditionalProperties && schema.properties) {
    return `unknown parameter; the known ones are ${Object.keys(schema.properties).join(", ")}`;
  }
  return e.message;
}

/** Reads the raw body as text within `maxBytes`, counting bytes as they stream in. */
export async function readRawText(event: H3Event, maxBytes: number): Promise<string> {
  const declared = Number(event.req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes)
    throw apiError("body_too_large", { detail: `Bodies are limited to ${maxBytes} bytes.` });
  // On Node, read the IncomingMessage itself: the Web stream srvx would wrap it in cost about 12%
  // of an MCP tools/call's CPU (stream adapters, transferable objects, copies) for a body of 150 bytes.
  const nodeReq = (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  if (nodeReq !== undefined && !nodeReq.readableDidRead) return _readNodeBody(nodeReq, maxBytes);
  const stream = event.req.body;
  if (!stream) return "";
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader
      .read()
      .catch(() => Promise.reject(apiError("client_closed_request", { detail: "The request body ended early." })));
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw apiError("body_too_large", { detail: `Bodies are limited to ${maxBytes} bytes.` });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function _readNodeBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      done();
      // The rest is left unread; Node discards it once the 413 has been sent.
      req.pause();
      reject(apiError("body_too_large", { detail: `Bodies are limited to ${maxBytes} bytes.` }));
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"));
    };
    // The request stream fails only when its socket does: the client hung up or was too slow.
    const onError = () => {
      done();
      reject(_cutOff(req));
    };
    // A client that goes away mid-body: nobody is left to answer, but the handler must not hang.
    const onClose = () => {
      done();
      reject(_cutOff(req));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/**
 * The catalogue error for a request whose connection ended before its body did, or null for any
 * other error (an upstream's reset included): 408 when Node's request timeout closed it (it has already written its own 408),
 * else 499, the client hung up. Either is the client's doing, never a 5xx.
 */
export function clientCutOff(error: unknown, event: H3Event): ApiError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ECONNRESET" && code !== "ERR_HTTP_REQUEST_TIMEOUT" && (error as Error | null)?.message !== "aborted") return null;
  // Only this request's own connection: an upstream's ECONNRESET is ours to answer as a 5xx.
  const req = (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  if (!req || !(req.destroyed || req.socket?.destroyed)) return null;
  return _cutOff(req);
}

/**
 * The JSON pointer of the first string (value or key) that is not well-formed UTF-16, or null.
 * JSON escapes can carry lone surrogates (`"\udfff"`), which UTF-8 cannot: stored, every one of
 * them becomes U+FFFD, so distinct ids would collide in one record. Iterative: bodies may nest deep.
 */
function _illFormedAt(root: unknown): string | null {
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!;
    if (typeof value === "string") {
      if (!_wellFormed(value)) return pointer || "/";
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${pointer}/${i}`]));
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (!_wellFormed(key)) return pointer || "/";
        stack.push([item, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
      }
    }
  }
  return null;
}

const _wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function _cutOff(req: IncomingMessage): ApiError {
  const reason = (req.socket as { errored?: { code?: unknown } | null } | null)?.errored;
  if (reason?.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return apiError("request_timeout", { detail: "The request body did not arrive within the time limit." });
  return apiError("client_closed_request", { detail: "The connection closed before the request body was complete." });
}

export async function readJsonBody<T extends TSchema>(event: H3Event, validator: BodyValidator<T>, maxBytes: number): Promise<Static<T>> {
  const type = event.req.headers.get("content-type") ?? "";
  const text = await readRawText(event, maxBytes);
  if (text.trim() === "") return validator.parse({});
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type))
    throw apiError("unsupported_media_type", { detail: `Got content-type "${type.slice(0, 100)}".` });
  // Before parsing: validating (and describing) a deeper value recurses past the stack.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw apiError("json_too_deep", { detail: `Bodies may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw apiError("invalid_json", { detail: (error as Error).message.slice(0, 200) });
  }
  const illFormed = _illFormedAt(value);
  if (illFormed !== null)
    throw apiError("invalid_unicode", {
      detail: `${illFormed.slice(0, 200)} holds a lone surrogate.`,
      errors: [{ pointer: illFormed, message: "must be well-formed Unicode" }],
    });
  return validator.parse(value);
}
