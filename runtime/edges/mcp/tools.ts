/**
 * The MCP tools. Each is defined over the SAME function its REST route calls (`readContent`
 * mirrors GET /api/demo through `decideRead` and `meterRead`; `evaluateNode`,
 * `readDelta`, `searchNodes`, `verifyKey`), and takes its input schema from the TypeBox
 * declarations in runtime/shared/schema/requests.ts, so REST and MCP cannot drift apart.
 *
 * Failures of the call itself (bad arguments, no access, quota) come back as results with
 * `isError: true` carrying the REST problem (code, detail, hint, unlock options), so an agent can
 * recover; only an unknown tool or non-object arguments are JSON-RPC errors.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { toReader } from "../../domain/access/credentials.ts";
import { readDelta, requireMembershipKey } from "../../domain/delta/read-delta.ts";
import { verifyKey } from "../../domain/keys/verify-key.ts";
import { evaluateNode } from "../../domain/rules/evaluate-node.ts";
import { searchNodes } from "../../domain/search/search-nodes.ts";
import { deltaIdentity, searchIdentity } from "../../domain/signing/answer-identity.ts";
import type { KnowledgeIdentity } from "../../shared/answer-signature.ts";
import { apiError } from "../../shared/errors.ts";
import { type BodyValidator, compileValidator } from "../../shared/http/body.ts";
import { IndexGraphSchema, LeanIndexGraphSchema, LeanNodeResponseSchema, NodeResponseSchema } from "../../shared/schema/artifacts.ts";
import { ResolvedVerticalSchema } from "../../shared/schema/catalog.ts";
import {
  DeltaRequestSchema,
  EvaluateRequestSchema,
  GetIndexRequestSchema,
  GetNodeRequestSchema,
  ListVerticalsRequestSchema,
  SearchRequestSchema,
  VerifyKeyRequestSchema,
} from "../../shared/schema/requests.ts";
import {
  DeltaResponseSchema,
  EvaluateResponseSchema,
  VerifyResponseSchema,
  VerticalPlaceholderSchema,
} from "../../shared/schema/responses.ts";
import { SearchResponseSchema } from "../../shared/schema/search.ts";
import { type ContentAnswer, readContent } from "./content.ts";
import type { McpContext } from "./context.ts";
import { PayArgument, payingCaller } from "./paid-call.ts";

const GetNodeArguments = Type.Composite([GetNodeRequestSchema, PayArgument], { additionalProperties: false });
const EvaluateArguments = Type.Composite([EvaluateRequestSchema, PayArgument], { additionalProperties: false });

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
  run(ctx: McpContext, args: any): Promise<ToolOutput>;
}

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  _tool({
    name: "list_verticals",
    title: "List verticals",
    description:
      "Lists the knowledge verticals with their status (live, coming_soon, planned), access model (fully_open, index_free, paid), node count and root node. Free; needs no key.",
    input: ListVerticalsRequestSchema,
    output: Type.Object({ verticals: Type.Array(ResolvedVerticalSchema) }),
    run: async (ctx) => ({ structured: { verticals: ctx.deps.build.current.catalog.verticals } }),
  }),
  _tool({
    name: "get_index",
    title: "Get a vertical's index",
    description:
      "The root index graph of a vertical: every node with title, summary, next_nodes, trial flag and layer_tokens (token estimate per layer, to budget before fetching). Knowledge only by default (the notes REST adds are in the vkr://about resource; lean: false includes them). Same decision as GET /api/demo without a node: the index layer is free for every caller and never metered; a refused key is ignored here and named in `credential_problem`.",
    input: GetIndexRequestSchema,
    output: _objectOf([IndexGraphSchema, LeanIndexGraphSchema, VerticalPlaceholderSchema]),
    // Knowledge only unless asked: the wrapper text is the same on every answer (vkr://about has it once).
    run: (ctx, args: Static<typeof GetIndexRequestSchema>) =>
      readContent(ctx, { vertical: args.vertical, node: null, lean: args.lean ?? true }),
  }),
  _tool({
    name: "get_node",
    title: "Get a node",
    description:
      'One knowledge node with its four layers (logic with compiled rules, directive, skill, action), sources and next_nodes: the node and next_nodes only by default when you can read its layers (the notes REST adds are in the vkr://about resource; lean: false includes them); `layers` returns only the named layers. A caller who cannot read the layers (no key, or a key that does not unlock this node) gets the free view as REST sends it: the index layer, locked_layers naming the rest and `unlock` saying what would open them (lean: true drops the hint). Same decision and metering as GET /api/demo: one retrieval per call only when a key unlocks gated layers; fully open verticals and free views cost nothing. Without a key, `pay: "x402"` pays for this one read ($0.002): the result is the x402 payment requirements (isError, in _meta["x402/payment-required"]); call again with the payment in _meta["x402/payment"].',
    input: GetNodeArguments,
    output: _objectOf([NodeResponseSchema, LeanNodeResponseSchema, VerticalPlaceholderSchema]),
    run: async (ctx, args: Static<typeof GetNodeArguments>) =>
      readContent(ctx, {
        vertical: args.vertical,
        node: args.node,
        lean: args.lean ?? "unless-locked",
        layers: args.layers,
        caller: payingCaller(ctx, "get_node", args),
      }),
  }),
  _tool({
    name: "search",
    title: "Search nodes",
    description:
      "Ranked search over the nodes you may read, from the build's prebuilt index; ask in plain words or keywords. Every caller is ranked the same way; snippets quote only layers you unlocked. Each result has a 0–1 `score`, and `match` says whether to answer from them: good, poor (nothing answers the question well: say so rather than answer from the results) or none. Free unless its snippets may quote gated layers a key unlocked, then one retrieval.",
    input: SearchRequestSchema,
    output: SearchResponseSchema,
    run: async (ctx, args: Static<typeof SearchRequestSchema>) => {
      const reader = await toReader(ctx.caller());
      if (reader.caller.kind === "anonymous") await ctx.anonymous.assert(ctx.client(), ctx.now);
      const query = { q: args.q, vertical: args.vertical ?? null, limit: args.limit ?? null };
      const build = ctx.deps.build.current;
      const outcome = await searchNodes(ctx.deps, reader, query, ctx.now);
      Object.assign(ctx.headers, outcome.headers);
      return { structured: outcome.body, identity: searchIdentity(build, query) };
    },
  }),
  _tool({
    name: "evaluate_rules",
    title: "Evaluate a node's rules",
    description:
      "Deterministically evaluates a node's compiled rules over boolean facts: which outcomes hold, the full gate trace, citations, and, when an outcome is still open, only the missing facts that can change it, most decisive first (`ask_first` names the one to ask first). Never guesses; leave unknown facts out. Needs the node's logic layer (a key) and counts as one retrieval, exactly as POST /api/evaluate; without a key, `pay: \"x402\"` pays for this one evaluation as get_node does.",
    input: EvaluateArguments,
    output: EvaluateResponseSchema,
    run: async (ctx, { pay, ...request }: Static<typeof EvaluateArguments>) => {
      const caller = payingCaller(ctx, "evaluate_rules", { ...request, ...(pay === undefined ? {} : { pay }) }) ?? (await ctx.caller());
      const { body, headers, identity } = await evaluateNode(ctx.deps, caller, request, ctx.now);
      Object.assign(ctx.headers, headers);
      return { structured: body as unknown as Record<string, unknown>, identity };
    },
  }),
  _tool({
    name: "get_changes",
    title: "Get changes (delta feed)",
    description:
      "The change feed of GET /v1/delta: nodes added, updated or deprecated, oldest first, with a cursor for the next page. Needs a membership key; one retrieval per page.",
    input: DeltaRequestSchema,
    output: DeltaResponseSchema,
    run: async (ctx, args: Static<typeof DeltaRequestSchema>) => {
      const record = requireMembershipKey(await ctx.caller());
      const query = { vertical: args.vertical ?? null, since: args.since ?? null, cursor: args.cursor ?? null, limit: args.limit ?? null };
      const build = ctx.deps.build.current;
      const { body, headers } = await readDelta(ctx.deps, record, query, ctx.now);
      Object.assign(ctx.headers, headers);
      return { structured: body as unknown as Record<string, unknown>, identity: deltaIdentity(build, query) };
    },
  }),
  _tool({
    name: "verify_key",
    title: "Verify a key",
    description:
      "Checks the presented service key (or the `key` argument): validity, type, verticals it unlocks, remaining quota and expiry, as GET /api/verify. Consumes no quota.",
    input: VerifyKeyRequestSchema,
    output: VerifyResponseSchema,
    run: async (ctx, args: Static<typeof VerifyKeyRequestSchema>) => {
      const key = args.key ?? ctx.presentedKey;
      if (key === null || key === "")
        throw apiError("key_missing", { detail: "Pass `key`, or present one in X-Service-Key or Authorization: Bearer." });
      return { structured: (await verifyKey(ctx.deps, key, ctx.now)).body };
    },
  }),
];

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((t) => [t.name, t]));

// --- Internal helpers ---

function _tool<T extends TSchema>(def: {
  name: string;
  title: string;
  description: string;
  input: T;
  output: TSchema | Record<string, unknown>;
  run(ctx: McpContext, args: Static<T>): Promise<ToolOutput>;
}): ToolDefinition {
  return {
    name: def.name,
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
function _objectOf(schemas: TSchema[]): Record<string, unknown> {
  return { type: "object", anyOf: schemas.map(_plain) };
}

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
