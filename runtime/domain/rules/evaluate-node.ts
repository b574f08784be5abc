/**
 * Rule evaluation for one caller, shared by `POST /api/evaluate` and the MCP `evaluate_rules`
 * tool: a read session (`planRead` with `need: "full"`, so the node's logic layer must be
 * unlocked under the same decision as `GET /api/demo`), the facts must be ones the node declares,
 * and an answer over gated layers counts as one retrieval for the key that unlocked them, or one
 * per-use charge for a pay token. A refused key is the key's 401 here (rules have no free view).
 */

import type { KnowledgeIdentity } from "../../shared/answer-signature.ts";
import { type BoundedCache, boundedCache } from "../../shared/cache.ts";
import { apiError } from "../../shared/errors.ts";
import type { EvaluateRequest } from "../../shared/schema/requests.ts";
import type { Evaluation } from "../../shared/schema/rules.ts";
import type { Artifacts, NodeMeta } from "../../state/releases/artifacts.ts";
import type { Caller } from "../access/credentials.ts";
import { planRead } from "../access/read-session.ts";
import { unknownNode, unknownVertical } from "../access/unknown-names.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { meterRead } from "../metering/meter-read.ts";
import { canonicalJson, evaluationIdentity } from "../signing/answer-identity.ts";
import { type DatedEvaluation, DateFactConflict, evaluateWithDates } from "./date-facts.ts";

export interface NodeEvaluation extends Evaluation {
  vertical: string;
  node: string;
  version: string;
}

export interface NodeEvaluationResult {
  body: NodeEvaluation;
  /** RateLimit headers when a key was metered, else empty. */
  headers: Record<string, string>;
  /** What the answer is, for its signature: the node, its version and a digest of the facts given. */
  identity: KnowledgeIdentity;
}

/**
 * @example await evaluateNode(deps, caller, { vertical: "travel", node: "eu261-compensation", facts: { flight_cancelled: true } }, now)
 */
export async function evaluateNode(deps: DomainDeps, caller: Caller, request: EvaluateRequest, now: number): Promise<NodeEvaluationResult> {
  const build = deps.build.current;
  const vertical = build.resolveVertical(request.vertical);
  if (!vertical) throw unknownVertical(build, request.vertical, { errors: [{ pointer: "/vertical", message: "unknown vertical" }] });
  const meta = build.nodeMeta(vertical.slug, request.node);
  if (!meta) throw unknownNode(build, vertical.slug, request.node);

  // 1. Access: the decision of GET /api/demo; rules need the logic layer, so a locked view is refused.
  //    A pay token is verified before anything of the node is revealed, and charged after the answer.
  const planned = planRead(deps, { build, vertical, meta, reader: { caller, credentialProblem: null }, need: "full" }, now);
  const plan = planned instanceof Promise ? await planned : planned;

  // 2. and 3. The same facts on the same node of the same build give the same answer: made once.
  const asOf = _asOfDate(request.as_of);
  // Without as_of, the facts alone, as before: answers given only facts keep their identity.
  const canonical = asOf === undefined ? canonicalJson(request.facts) : canonicalJson({ as_of: asOf, facts: request.facts });
  const key = `${vertical.slug}\u0000${meta.id}\u0000${canonical}`;
  let answers = evaluations.get(build);
  if (answers === undefined) evaluations.set(build, (answers = boundedCache(EVALUATIONS_MAX)));
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = await _evaluate(build, vertical.slug, meta, request.facts, asOf, canonical);
    answers.set(key, answer);
  }

  // 4. Meter as decided (gated layers only): a refused request consumes nothing.
  const headers = await meterRead(deps, plan, now);
  return { body: answer.body, headers, identity: answer.identity };
}

// --- Internal helpers ---

/**
 * Answers already made, per build (a new build starts empty). An evaluation is a pure function of
 * the node's compiled rules and the facts, and the answer object is shared by every request that
 * asks the same (read-only from here on: routes serialise it, never change it); agents that ask
 * step by step pass through the same few fact sets, and a bounded map keeps request-chosen facts
 * from growing it without end.
 */
const evaluations = new WeakMap<Artifacts, BoundedCache<string, { body: NodeEvaluation; identity: KnowledgeIdentity }>>();
// An answer and its serialised bytes are tens of KiB on a large node, so this bounds the memory a
// key holder asking many fact sets can take to a few tens of MB.
const EVALUATIONS_MAX = 512;

/** Checks the facts against the node's declared ones (listing them is safe now that the layer is unlocked), then evaluates. */
async function _evaluate(
  build: Artifacts,
  slug: string,
  meta: NodeMeta,
  facts: EvaluateRequest["facts"],
  asOf: string | undefined,
  canonical: string,
): Promise<{ body: NodeEvaluation; identity: KnowledgeIdentity }> {
  const logic = await build.logic(slug, meta.id);
  const ruleSet = {
    facts: logic?.facts ?? [],
    outcomes: logic?.outcomes ?? [],
    rules: logic?.rules ?? [],
    ...(logic?.intermediate ? { intermediate: logic.intermediate } : {}),
    ...(logic?.date_facts ? { date_facts: logic.date_facts } : {}),
  };
  const declared = new Set(ruleSet.facts.map((f) => f.id));
  const unknown = Object.keys(facts).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    const list = ruleSet.facts.map((f) => f.id);
    throw apiError("validation_failed", {
      detail: `Unknown fact${unknown.length > 1 ? "s" : ""} ${unknown
        .slice(0, 5)
        .map((n) => `"${n.slice(0, 100)}"`)
        .join(", ")}; ${meta.id} declares ${list.length ? list.join(", ") : "no facts"}.`,
      errors: unknown
        .slice(0, 20)
        .map((name) => ({ pointer: `/facts/${_escapePointer(name.slice(0, 100))}`, message: "not a fact of this node" })),
      extra: { declared_facts: ruleSet.facts },
    });
  }
  let evaluation: DatedEvaluation;
  try {
    evaluation = evaluateWithDates(ruleSet, facts, asOf);
  } catch (error) {
    if (!(error instanceof DateFactConflict)) throw error;
    throw apiError("validation_failed", {
      detail: `The date facts contradict each other: ${error.message}`,
      errors: [{ pointer: `/facts/${_escapePointer(error.fact)}`, message: error.message }],
    });
  }
  return {
    body: { vertical: slug, node: meta.id, version: meta.version, ...evaluation },
    identity: evaluationIdentity(build, meta, canonical),
  };
}

/**
 * The calendar date of `as_of` as written (the request schema checked its form): a date-time
 * counts for the day it names, as a legal date does. An impossible date (2026-02-30) is refused.
 */
function _asOfDate(asOf: string | undefined): string | undefined {
  if (asOf === undefined) return undefined;
  const date = asOf.slice(0, 10);
  const time = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== date)
    throw apiError("validation_failed", {
      detail: `"as_of" must be a real date (YYYY-MM-DD); "${date}" is not one.`,
      errors: [{ pointer: "/as_of", message: "not a real date" }],
    });
  return date;
}

/** RFC 6901: `~` and `/` inside a member name. */
function _escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}
