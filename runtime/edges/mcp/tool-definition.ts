/**
 * How an MCP tool is defined: over the SAME function its REST route calls, with its input schema
 * taken from the TypeBox request schemas in runtime/shared/schema/requests.ts, so REST and MCP
 * cannot drift apart. A tool that answers through a route's function is defined in that route's
 * file and named in its declaration (`mcp`); MCP-only tools live in `tools.ts`.
 *
 * Failures of the call itself (bad arguments, no access, quota) come back as results with
 * `isError: true` carrying the REST problem (code, detail, hint, unlock options), so an agent can
 * recover; only an unknown tool or non-object arguments are JSON-RPC errors.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { KnowledgeIdentity } from "../../shared/answer-signature.ts";
import { type BodyValidator, compileValidator } from "../../shared/http/body.ts";
import type { ContentAnswer } from "./content.ts";
import type { McpContext } from "./context.ts";

/**
 * What a tool produced: an object (with what it is, when it is knowledge to sign), or JSON text it
 * already has (a prebuilt artifact), which is used as both the text block and `structuredContent`
 * without being parsed and re-serialised.
 */
export type ToolOutput = { structured: Record<string, unknown>; identity?: KnowledgeIdentity } | ContentAnswer;

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Record<string, boolean>;
  validator: BodyValidator<TSchema>;
  /**
   * Where tools/list shows the tool: lowest rank first, then tools without a rank in route order.
   * The ranks keep the order clients have been shown since the tools were first listed.
   */
  rank?: number;
  /** How POST /mcp's description names the tool, when it says more than its name. */
  listing?: string;
  run(ctx: McpContext, args: any): Promise<ToolOutput>;
}

export function defineTool<T extends TSchema>(def: {
  name: string;
  title: string;
  description: string;
  input: T;
  output: TSchema | Record<string, unknown>;
  run(ctx: McpContext, args: Static<T>): Promise<ToolOutput>;
  rank?: number;
  listing?: string;
}): ToolDefinition {
  return {
    name: def.name,
    ...(def.rank === undefined ? {} : { rank: def.rank }),
    ...(def.listing === undefined ? {} : { listing: def.listing }),
    title: def.title,
    description: def.description,
    inputSchema: _plain(def.input),
    outputSchema: _plain(def.output),
    // Every tool only reads; none touches anything outside this service.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    validator: compileValidator(def.input) as unknown as BodyValidator<TSchema>,
    run: def.run,
  };
}

/** MCP wants `type: "object"` at the top of an output schema; a union becomes an object with `anyOf`. */
export function objectOf(schemas: TSchema[]): Record<string, unknown> {
  return { type: "object", anyOf: schemas.map(_plain) };
}

// --- Internal helpers ---

/**
 * The schema as plain JSON (TypeBox's symbol keys dropped). Sub-schemas with an `$id` (recursive
 * ones, like a rule's gate tree) may appear several times in a union; each is kept once under
 * `$defs` and referenced by its id, since validators refuse an id that names two schemas.
 */
function _plain(schema: unknown): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const obj = value as Record<string, unknown>;
    const out = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, walk(v)]));
    if (typeof obj.$id !== "string") return out;
    defs[obj.$id] ??= out;
    return { $ref: obj.$id };
  };
  const root = walk(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}
