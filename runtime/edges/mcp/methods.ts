/**
 * The MCP methods this server answers (2025-06-18 / 2025-11-25, stateless): initialize, ping,
 * tools/list|call, prompts/list|get, resources/list|read|templates/list. Protocol errors are
 * `RpcError`s; tool failures are `isError` results (see tool-definition.ts).
 */

import { servedSignature } from "../../domain/signing/answer-signer.ts";
import { isApiError } from "../../shared/errors.ts";
import { logProblemCause } from "../../shared/http/log-cause.ts";
import { problemBody } from "../../shared/http/problem.ts";
import type { ContentAnswer } from "./content.ts";
import type { McpContext } from "./context.ts";
import { EncodedJson, RawJson, RPC, RpcError, toJsonText } from "./jsonrpc.ts";
import { paidResultMeta } from "./paid-call.ts";
import { PROMPTS, PROMPTS_BY_NAME, readPromptArguments } from "./prompts.ts";
import { listResources, RESOURCE_TEMPLATES, readResource } from "./resources.ts";

/** Versions a client may negotiate, newest first; the first is offered to any other request. */
export const NEGOTIABLE_VERSIONS = ["2025-11-25", "2025-06-18"] as const;
/**
 * Versions accepted in MCP-Protocol-Version: those `initialize` negotiates, and no other, since a
 * client sends the version it negotiated. A request without the header is served as it is.
 */
export const ACCEPTED_VERSIONS: ReadonlySet<string> = new Set(NEGOTIABLE_VERSIONS);

const SERVER_NAME = "vertical-knowledge-retrieval";
const INSTRUCTIONS = [
  "Structured, cited knowledge for agents, by vertical (list_verticals). Start with get_index or search, then get_node with only the layers you need (layer_tokens tells their size).",
  "Decide with evaluate_rules: it evaluates a node's compiled rules over boolean facts and never guesses; missing facts come back with their questions.",
  "get_node and get_index return knowledge only; the notes every REST answer carries (how to read confidence, node types, community, what membership adds) are in the resource vkr://about: read it once.",
  "Gated layers need a key: send X-Service-Key (or Authorization: Bearer svc_…). POST /api/trial gives a 24-hour trial key. Calls with a key count against its quota exactly as on REST.",
].join(" ");

type Handler = (ctx: McpContext, params: Record<string, unknown>) => Promise<unknown>;

const PROMPT_LIST = PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));

export const METHODS: Readonly<Record<string, Handler>> = {
  initialize: async (ctx, params) => {
    const requested = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
    const protocolVersion = (NEGOTIABLE_VERSIONS as readonly string[]).includes(requested) ? requested : NEGOTIABLE_VERSIONS[0];
    return {
      protocolVersion,
      capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false, subscribe: false } },
      serverInfo: { name: SERVER_NAME, title: "Vertical Knowledge Retrieval", version: ctx.deps.build.current.manifest.api_version },
      instructions: INSTRUCTIONS,
    };
  },
  ping: async () => ({}),
  "tools/list": async (ctx, params) => (_firstPage(params), { tools: ctx.tools.listed }),
  "tools/call": async (ctx, params) => {
    const name = params.name;
    const tool = typeof name === "string" ? ctx.tools.byName.get(name) : undefined;
    if (!tool) throw new RpcError(RPC.invalidParams, `Unknown tool: ${String(name).slice(0, 64)}`);
    const raw = params.arguments ?? {};
    if (raw === null || typeof raw !== "object" || Array.isArray(raw))
      throw new RpcError(RPC.invalidParams, `"arguments" must be an object.`);
    const meta = params._meta;
    if (meta !== null && typeof meta === "object" && !Array.isArray(meta)) ctx.toolMeta = meta as Record<string, unknown>;
    const started = performance.now();
    // Labelled by the tool's name from the app's tool set (a fixed set), never by what the request said.
    const observe = (outcome: "ok" | "error") =>
      ctx.deps.metrics?.observeToolCall({ tool: tool.name, outcome, seconds: (performance.now() - started) / 1000 });
    try {
      const output = await tool.run(ctx, tool.validator.parse(raw));
      observe("ok");
      const paid = paidResultMeta(ctx);
      if ("bytes" in output) return _artifactResult(ctx, output, paid);
      const text = JSON.stringify(output.structured);
      // The same digest and signature a REST answer carries as headers, over the text block's bytes.
      const signed = output.identity ? ctx.deps.shared.signer.sign(text, output.identity, ctx.now) : {};
      const resultMeta = { ...signed, ...paid };
      return {
        content: [{ type: "text", text }],
        structuredContent: output.structured,
        ...(Object.keys(resultMeta).length ? { _meta: resultMeta } : {}),
      };
    } catch (error) {
      observe("error");
      if (!isApiError(error)) throw error;
      logProblemCause(ctx.deps.logger, ctx.requestId, error);
      // The REST problem, as text: structuredContent would be checked against the tool's outputSchema.
      // The readable line first, then the problem's other fields, each said once.
      const { title, detail, ...rest } = problemBody(error, { requestId: ctx.requestId, baseUrl: ctx.deps.config.publicBaseUrl });
      // The detail already lists up to three field errors.
      if (Array.isArray(rest.errors) && rest.errors.length <= 3) delete rest.errors;
      const content = [{ type: "text", text: `${title}: ${detail}\n${JSON.stringify(rest)}` }];
      // x402's MCP transport: the requirements an x402 client pays, as data (not structuredContent,
      // which MCP clients check against the tool's output schema).
      const required = rest.payment_required;
      if (required === undefined) return { content, isError: true };
      content.push({ type: "text", text: JSON.stringify(required) });
      return { content, isError: true, _meta: { "x402/payment-required": required } };
    }
  },
  "prompts/list": async (_ctx, params) => (_firstPage(params), { prompts: PROMPT_LIST }),
  "prompts/get": async (ctx, params) => {
    const prompt = typeof params.name === "string" ? PROMPTS_BY_NAME.get(params.name) : undefined;
    if (!prompt) throw new RpcError(RPC.invalidParams, `Unknown prompt: ${String(params.name).slice(0, 64)}`);
    const args = readPromptArguments(prompt, params.arguments);
    return {
      description: prompt.description,
      messages: [{ role: "user", content: { type: "text", text: prompt.render(args, ctx.deps.build.current.catalog) } }],
    };
  },
  "resources/list": async (ctx, params) => {
    _firstPage(params);
    return { resources: await listResources(ctx.deps.build.current, await ctx.callerOrAnonymous()) };
  },
  "resources/templates/list": async (_ctx, params) => (_firstPage(params), { resourceTemplates: RESOURCE_TEMPLATES }),
  "resources/read": async (ctx, params) => {
    if (typeof params.uri !== "string") throw new RpcError(RPC.invalidParams, `"uri" must be a string.`);
    return readResource(ctx, params.uri);
  },
};

// --- Internal helpers ---

/** Every list fits one page and no `nextCursor` is ever issued, so any cursor sent is not ours (-32602, as the spec asks). */
function _firstPage(params: Record<string, unknown>): void {
  if (params.cursor !== undefined)
    throw new RpcError(RPC.invalidParams, "Invalid cursor: this server lists everything on one page and issues no cursor.");
}

/**
 * A prebuilt artifact as a tool result, encoded once per artifact (by ETag) and second, then served
 * as bytes: the text block and `structuredContent` are the artifact itself, never parsed.
 */
function _artifactResult(ctx: McpContext, output: ContentAnswer, paid: Record<string, unknown>): EncodedJson {
  // `_meta` carries the headers a REST answer has, dated like them: the encoding holds the
  // signature's `created`, so it is kept for the second it was made in.
  // A paid result carries its own settlement, so it is never one cached for everyone.
  const own = Object.keys(paid).length > 0;
  const cacheKey = output.etag === null || own ? null : `${output.etag}@${Math.floor(ctx.now / 1000)}`;
  const cached = cacheKey === null ? undefined : ctx.results.get(cacheKey);
  if (cached) return cached;
  const text = Buffer.from(output.bytes).toString("utf8");
  const signature = servedSignature(ctx.deps.shared.signer, output, ctx.now);
  const resultMeta = own ? { ...signature, ...paid } : signature;
  const result = { content: [{ type: "text", text }], structuredContent: new RawJson(text), ...(resultMeta ? { _meta: resultMeta } : {}) };
  const encoded = new EncodedJson(new TextEncoder().encode(toJsonText(result)));
  if (cacheKey !== null) ctx.results.set(cacheKey, encoded);
  return encoded;
}
