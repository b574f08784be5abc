/** POST /api/evaluate: validates the body, resolves the caller and hands over to `evaluateNode`. */

import { type Static, Type } from "@sinclair/typebox";
import { requestCaller } from "../../domain/access/request-caller.ts";
import { evaluateNode } from "../../domain/rules/evaluate-node.ts";
import { sendSharedSignedJson } from "../../domain/signing/send-signed.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { EvaluateRequestSchema } from "../../shared/schema/requests.ts";
import { EvaluateResponseSchema } from "../../shared/schema/responses.ts";
import { PayArgument, payingCaller } from "../mcp/paid-call.ts";
import { defineTool } from "../mcp/tool-definition.ts";
import { RATE_HEADERS, SIGNATURE_HEADERS } from "../openapi/fragments.ts";
import { perUseParagraphs, perUseParams, perUseResponseHeaders } from "../openapi/per-use-openapi.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(EvaluateRequestSchema);

const EvaluateArguments = Type.Composite([EvaluateRequestSchema, PayArgument], { additionalProperties: false });

const EVALUATE_RULES_TOOL = defineTool({
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
  rank: 5,
});

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/api/evaluate",
    operationId: "evaluateRules",
    metrics: "retrieval",
    mcp: [EVALUATE_RULES_TOOL],
    summary: "Evaluate a node's compiled rules over boolean facts",
    description: [
      "Deterministic evaluation of one node's rules: every outcome that holds, the full gate trace of every rule (which gates were true, false or undetermined, and why), the citations, `confidence_required: 1`. An outcome holds (or does not) when it does for every value the facts you left out could take; otherwise it is `undetermined`. Never a guess, a probability or partial credit.",
      "Only relevant questions: `missing_facts` lists a fact only if some answer to it can still change an undetermined outcome (a fact inside a branch already decided is never listed), each with its question, `decides` (the undetermined outcomes it can change) and `settles` (how many of them one answer settles). They are ordered most decisive first, and `ask_first` names the first (null when nothing is open). Questions follow the case: an outcome the node lists in its logic layer's `intermediate` (a step that only feeds other outcomes, such as a significant-change test once the flight is known to be cancelled) is reported but never asked about for its own sake, and never appears in `decides`. Answering the listed questions, in any order, determines every undetermined outcome that is not intermediate and never brings up a new question.",
      "Typed values: an outcome that holds carries `values` when the node declares them, so figures need no parsing: `{ type: amount, amount, currency }`, `{ type: cap, amount, unit }` (a currency, `SDR`, or per-unit like `EUR/night`), `{ type: percent, percent, of }`, `{ type: duration, amount, unit }` (minutes, hours, days, business_days, weeks, months, years), `{ type: date, date }`, `{ type: url, url }`, `{ type: path, path }`, each with an optional `note`. An outcome that does not hold, or is undetermined, has no `values`.",
      "Facts must be booleans (anything else is 400 `validation_failed`) and must be facts the node declares (400 `validation_failed` with `declared_facts`). Leave a fact out when it is not known.",
      "Date facts: a node whose logic layer declares `date_facts` (each fact true exactly when the assessed date is on or after its `on_or_after`, e.g. aic-timeline's `event_on_or_after_2026_08_02`) takes one date instead: `as_of` (ISO 8601, `YYYY-MM-DD`, or a date-time whose calendar date as written counts). Every date fact is derived from it, deterministically, and echoed with the date in `derived_facts` and `as_of`. Without `as_of`, a date fact given settles the ones it implies (a date not on or after 2 Aug 2026 is not on or after any later date), also echoed in `derived_facts`; while the date is unknown, the open date facts are asked as one entry of `missing_facts` with id `as_of`. A fact that contradicts `as_of` or another date fact given is 400 `validation_failed` pointing at it; an impossible date (`2026-02-30`) 400 at `/as_of`. `as_of` on a node without date facts changes nothing (`derived_facts: {}`).",
      "Access: the node's logic layer must be unlocked, under the same decision as GET /api/demo with `node`. Without credentials an index-free vertical is 402 `payment_required` (its logic layer is locked), a paid vertical 402; a key that does not unlock the vertical or module 403 `vertical_forbidden` / `module_not_in_trial`; each with `unlock`. A bad key 401. Fully open verticals need nothing.",
      "Metering: each 200 over a gated node's rules answered for a key that unlocks it counts as one retrieval, exactly like a node request; rules of fully open verticals are free; refused requests (4xx) are not counted.",
      "Per-use payment: a KYAPay pay or kya-pay token in `pay-network-pay-id` unlocks the logic layer of any node; each 200 over a gated node is charged $0.002 like a content node request on GET /api/demo (verified before the facts are checked, reserved atomically in the token's ledger, reported in `Pay-Network-Charged` / `Pay-Network-Remaining`); invalid, expired, kya-only or used-up tokens are 402 as there; 402 `per_use_not_accepted` (with a hint naming the key routes) where no agent payment network is configured.",
      "A node without compiled rules answers 200 with empty `outcomes`, `rules` and `missing_facts` (and declares no facts, so only `facts: {}` is accepted): agents may call every node uniformly.",
      ...perUseParagraphs(),
    ].join("\n\n"),
    security: ["none", "serviceKey", "payToken"],
    params: perUseParams(),
    body: EvaluateRequestSchema,
    responses: {
      200: {
        description: "The evaluation",
        schema: EvaluateResponseSchema,
        headers: [...RATE_HEADERS, "Pay-Network-Charged", "Pay-Network-Remaining", ...perUseResponseHeaders(200), ...SIGNATURE_HEADERS],
      },
      400: { description: "Invalid body, non-boolean or unknown fact, unknown vertical" },
      401: { description: "Malformed, unknown, revoked or expired key" },
      402: {
        description:
          "The logic layer is locked for a caller without credentials, or a per-use token that is invalid, expired, kya-only or used up; with `pay=x402`, `read_payment_required`: the x402 requirements for this evaluation, or a payment refused",
        headers: perUseResponseHeaders(402),
      },
      403: { description: "The key does not unlock this vertical or module" },
      404: { description: "Unknown node" },
      429: { description: "A quota window is full", headers: ["Retry-After", ...RATE_HEADERS] },
      502: {
        description: "`payment_gateway_error`: the agent payment network did not answer a per-use charge properly; nothing was served",
      },
      503: { description: "`store_unavailable`", headers: ["Retry-After"] },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("evaluateRules", async (event) => {
    const request = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const caller = await requestCaller(event, deps).caller();
    const { body, headers, identity } = await evaluateNode(deps, caller, request, now);
    return sendSharedSignedJson(event, deps, body, identity, now, { ...headers, vary: CREDENTIAL_VARY });
  });
});
