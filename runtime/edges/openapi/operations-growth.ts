/**
 * OpenAPI operations of the growth area: waitlist, demand signals, Proof-of-Value, member
 * telemetry and referrals. Every decision the spec leaves open is written into `description`.
 */
import { Type } from "@sinclair/typebox";
import { HIGHLIGHT_RULE } from "../../domain/growth/proof-of-value.ts";
import {
  InterestRequestSchema,
  PovRequestSchema,
  ReferralRequestSchema,
  TelemetryRequestSchema,
  WaitlistRequestSchema,
} from "../../shared/schema/growth-requests.ts";
import {
  InterestRegisteredSchema,
  InterestSummarySchema,
  OutcomeRecordedSchema,
  PovAggregateSchema,
  PovRecordedSchema,
  ReferralLoggedSchema,
  WaitlistJoinedSchema,
  WaitlistOverviewSchema,
} from "../../shared/schema/growth-responses.ts";
import type { Operation, OperationParam } from "./operations.ts";

const KEY_HEADER: OperationParam = {
  name: "X-Service-Key",
  in: "header",
  schema: Type.String(),
  description: "Membership (svc_live_…) or trial (svc_trial_…) key",
};
const COHORT_RULE =
  "Cohort progression is evaluated whenever a member account claims its seat (its first membership key) and whenever member telemetry arrives: when every seat of the active cohort is claimed AND the mean Proof-of-Outcome confidence over all submissions is strictly above 0.8 (scores are aggregated at 6-decimal precision), the next tier opens (inaugural → core → growth → scale → cap) and every member account of the left cohort is credited that cohort's loyalty credit ($1.90, $4.90, $9.90, $14.90) once, owed against its next monthly cycle. Members keep their cohort's price (grandfathered): a member account buys more keys in its own cohort, at that cohort's (graduated) price, whichever cohort is open to new members. A new member account takes a seat of the active cohort when its purchase is reserved, before any payment, atomically against `member_cap`, and gives it back if the purchase is released; while the active cohort is full and the next tier closed, POST /api/checkout (and admin issuance) answers a new member 409 `cohort_full` (with `cohort`, `member_cap`, `seats_claimed` and `waitlist`) before anything is charged. `seats_claimed` counts the seats held (members and new members' purchases under way) and never exceeds `member_cap`.";

export const GROWTH_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/waitlist",
    operationId: "getWaitlist",
    metrics: "request",
    security: ["none"],
    summary: "Waitlist overview: seats per cohort, cohort status, waitlists per paid vertical",
    description: [
      "Cohort `status`: `closed` for tiers before the active one, `open` or `full` for the active one, `upcoming` after it. `seats_registered` counts every seat held over all cohorts (one per member account, however many keys it holds, including a new member's purchase under way); `cohorts[].seats_claimed` for inaugural equals `total_inaugural_registered` in GET /api/status.",
      COHORT_RULE,
    ].join("\n\n"),
    responses: { 200: { description: "Seat counts and cohort status", schema: WaitlistOverviewSchema } },
  },
  {
    method: "post",
    path: "/api/waitlist",
    operationId: "joinWaitlist",
    metrics: "request",
    security: ["none"],
    summary: "Join a paid vertical's waitlist",
    description: [
      "Only the 15 paid verticals (any other known vertical 400 `vertical_not_allowed`, an unknown slug 400 `vertical_unknown`). `agent_id` is required unless a `contact` email takes its place (neither: 400 `validation_failed`); `contact` must be an email.",
      "The waitlisted party is the agent_id, or the lower-cased contact when no agent_id is given. Joining again returns the original position and confirmation with `already_registered: true`; positions are exact under concurrency. The status object's `verticals.<slug>.waitlist_registered` counts the same list.",
      "One client address may bring NEW_IDENTITIES_PER_CLIENT_DAY (default 50) parties not on a waitlist before per UTC day; beyond, 429 `rate_limited` with Retry-After and no position is taken. Re-joins of known parties are not limited.",
    ].join("\n\n"),
    body: WaitlistRequestSchema,
    responses: {
      200: { description: "Confirmation and position", schema: WaitlistJoinedSchema },
      400: { description: "Invalid body, not a paid vertical" },
      429: { description: "Too many new parties from this client today", headers: ["Retry-After"] },
    },
  },
  {
    method: "post",
    path: "/api/interest",
    operationId: "registerInterest",
    metrics: "request",
    security: ["none"],
    summary: "Register demand for a vertical that is not built yet",
    description: [
      "`vertical` is a catalogue vertical without live content, or any other well-formed slug (lowercase kebab-case, at most 64 characters): demand signals exist to discover verticals nobody listed yet, and a new slug is ranked in the summary as `proposed`. A live vertical (or its alias) is 400 `vertical_not_allowed`; a malformed slug 400 `validation_failed`. At most 200 distinct proposed slugs are kept (400 `vertical_not_allowed` beyond: signal one of them).",
      "Deduplicated per agent and vertical: the agent is `agent_id`, or the lower-cased `contact` without one; a repeat answers 200 with `counted: false` and the unchanged count. A signal with neither is anonymous: each counts once, and one client address may send INTEREST_ANON_PER_CLIENT_DAY (default 10) anonymous signals per UTC day, 429 `rate_limited` with Retry-After beyond (nothing counted). Named signals from agents or contacts not seen before are limited to NEW_IDENTITIES_PER_CLIENT_DAY (default 50) per client address and UTC day, the same way.",
      "500 signals (the catalogue's `demand_signals_to_activate`) activate the vertical's build queue (`build_queue_active`). `use_case` and `contact` are stored, never published.",
    ].join("\n\n"),
    body: InterestRequestSchema,
    responses: {
      200: { description: "Interest registered", schema: InterestRegisteredSchema },
      400: { description: "Invalid body or slug, a live vertical, or no room for another proposed vertical" },
      429: { description: "Too many anonymous signals, or new agents, from this client today", headers: ["Retry-After"] },
    },
  },
  {
    method: "get",
    path: "/api/interest/summary",
    operationId: "getInterestSummary",
    metrics: "request",
    security: ["none"],
    summary: "Ranked demand leaderboard",
    description:
      "Every vertical without live content and every proposed slug (status `proposed`, title = slug), ranked by signal count (ties in catalogue order, then proposal order), with the activation threshold (500), whether each build queue is active and how many signals remain to activate it.",
    responses: { 200: { description: "The ranking", schema: InterestSummarySchema } },
  },
  {
    method: "post",
    path: "/api/telemetry/pov",
    operationId: "submitProofOfValue",
    metrics: "request",
    summary: "Submit a Proof-of-Value evaluation of a trial",
    description: [
      "Key header required (none 401 `key_missing`, bad 401 `key_*`). The body's `trial_key` must be a trial key issued here and not revoked (else 400 `trial_key_invalid`); it may have expired. The caller's key must be that trial key itself, or a membership key of the same agent (its agent_id or account equals the trial's agent_id), else 403 `key_mismatch`.",
      "Bounds: `confidence_score` 0 to 1 inclusive (1.0000001 is 400), `review` at most 1024 characters (1025 is 400), unknown fields 400.",
      "Each trial key counts once: a repeat replaces its earlier submission (`replaced: true`) and neither `evaluations` nor the status object's `community_evidence.trial_evaluations` grows.",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: PovRequestSchema,
    responses: {
      200: { description: "Proof-of-Value recorded", schema: PovRecordedSchema },
      400: { description: "Invalid body or trial_key" },
      401: { description: "Missing, malformed, unknown, revoked or expired key" },
      403: { description: "The caller's key may not report for this trial key" },
    },
  },
  {
    method: "get",
    path: "/api/telemetry/pov",
    operationId: "getProofOfValue",
    metrics: "request",
    security: ["none"],
    summary: "Aggregate of trial evaluations",
    description: [
      "Public. Over the current submission of every trial key: the count, the mean `confidence_score` (6 decimals), intent to subscribe (yes / no / unspecified counts and `share` = yes ÷ evaluations) and highlighted reviews.",
      `Highlighted reviews: ${HIGHLIGHT_RULE} Reviews are shown without any key, agent or contact.`,
      "The aggregate is computed at most once every 2 seconds per instance (concurrent readers share one computation; a submission on the same instance refreshes it at once), so another instance's submission may take up to 2 seconds to appear.",
    ].join("\n\n"),
    responses: { 200: { description: "The aggregate", schema: PovAggregateSchema } },
  },
  {
    method: "post",
    path: "/api/telemetry",
    operationId: "submitMemberTelemetry",
    metrics: "request",
    summary: "Member feedback: Proof-of-Outcome",
    description: [
      "Membership key required in X-Service-Key: none 401 `key_missing`, a bad key 401 `key_*`, a trial key, a valid key of the wrong kind, 403 `key_kind_not_allowed` (Proof-of-Outcome needs a paid key; trials report at POST /api/telemetry/pov).",
      "Body: `confidence_score` 0 to 1 inclusive (required) — how confident the member is that its outcome is due to the retrieved knowledge; optional outcome fields: `outcome` (succeeded, partially_succeeded, failed), `vertical`, `nodes_used`, `tasks_completed`, `errors_prevented`, `tokens_saved`, `notes` (≤1024 characters). Every accepted submission is kept and counts in the aggregate (not one per member).",
      "Limit: one membership key may submit OUTCOMES_PER_KEY_DAY (default 20) times per UTC day. Beyond that the submission is refused with 429 `outcome_limit_reached` and Retry-After (seconds to the next UTC midnight): nothing is stored and the aggregate does not move. Refusing, rather than accepting without counting, tells the agent at once that the submission did not count.",
      COHORT_RULE,
      "The response carries the aggregate after this submission and `cohort.opened`, the tier this submission opened (null if none).",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: TelemetryRequestSchema,
    responses: {
      200: { description: "Proof-of-Outcome recorded", schema: OutcomeRecordedSchema },
      400: { description: "Invalid body" },
      401: { description: "Missing or bad key" },
      403: { description: "A trial key: Proof-of-Outcome needs a membership key" },
      429: {
        description: "`outcome_limit_reached`: this key's submissions for the UTC day are used up; nothing was recorded",
        headers: ["Retry-After"],
      },
    },
  },
  {
    method: "post",
    path: "/api/referral",
    operationId: "logReferral",
    metrics: "request",
    summary: "Log a referral and earn credit",
    description: [
      "A membership or trial key in X-Service-Key (as the spec's authentication table lists; none 401 `key_missing`, a bad key 401 `key_*`). `referring_key` must be that same key (else 403 `key_mismatch`); `method` is one of agent-to-agent, volume-broadcast, principal-redirect (else 400).",
      "Referring your own agent_id or account is 400 `self_referral`; an agent that already holds a membership is 409 `already_member` (credit is for new members); an agent can be referred once, by anyone: a second referral of the same agent is 409 `already_referred`.",
      "The referral is logged `pending`, with no credit: an agent id anyone can invent earns nothing. When the referred agent becomes a paying member (a checkout paid by card, agent-network token or x402 issues it keys; admin-issued keys do not count), the referral is `credited` $1.50 if it is among the referrer's first 4 of that billing cycle ($6 maximum), else `cap_reached` with 0. The billing cycle is the UTC calendar month in which the referral qualifies. Credit is owed to the referrer's account (agent_id or contact; for a trial key, its agent_id, so it is there when that agent becomes a member) and applied at the next renewal; `credit_balance` is what the account is owed now, including loyalty credits, and GET /api/keys shows it with every grant.",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: ReferralRequestSchema,
    responses: {
      200: { description: "The logged referral and the credit balance", schema: ReferralLoggedSchema },
      400: { description: "Invalid body or self-referral" },
      401: { description: "Missing or bad key" },
      403: { description: "referring_key is not the caller's key" },
      409: { description: "This agent is already a member, or was already referred" },
    },
  },
];
