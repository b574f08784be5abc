/**
 * `vkr keys create | list | show | revoke | reroll | label | expire | usage`: key administration on the service's own store, through
 * the same functions as POST /api/keys and the admin routes (issueAdminKeys, revokeKey, the admin view).
 */

import { unknownVertical } from "../../runtime/domain/access/unknown-names.ts";
import { describeKeyForAdmin } from "../../runtime/domain/keys/admin-key-view.ts";
import { parseExpiry, REROLL_GRACE_MAX_SECONDS, rerollKey, updateKey } from "../../runtime/domain/keys/manage-key.ts";
import { findKey, revokeKey, toKeyReference } from "../../runtime/domain/keys/revoke-key.ts";
import { describeKeyUsage, USAGE_HISTORY_DAYS } from "../../runtime/domain/metering/usage-history.ts";
import { issueAdminKeys } from "../../runtime/domain/payments/purchases/issue-keys.ts";
import { didYouMean } from "../../runtime/shared/did-you-mean.ts";
import { apiError } from "../../runtime/shared/errors.ts";
import { compileValidator } from "../../runtime/shared/http/body.ts";
import type { AdminKeyView } from "../../runtime/shared/schema/admin-keys.ts";
import { UpdateKeyRequestSchema } from "../../runtime/shared/schema/admin-keys.ts";
import { type KeyRecord, parseKeyString } from "../../runtime/shared/schema/keys.ts";
import { IssueKeysRequestSchema } from "../../runtime/shared/schema/requests.ts";
import type { KeysStore } from "../../runtime/state/storage/keys-store.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { withOperatorContext } from "../operator-context.ts";
import { printResult } from "../output.ts";
import { STORE_ARGS } from "../store-args.ts";

const issueValidator = compileValidator(IssueKeysRequestSchema);
const updateValidator = compileValidator(UpdateKeyRequestSchema);

const create = defineCommand({
  meta: { name: "create", description: "Issue membership keys (like POST /api/keys); each key is printed once" },
  args: {
    vertical: { type: "string", required: true, description: "A vertical slug, or all" },
    label: { type: "string", description: "Label to find the keys by later" },
    "agent-id": { type: "string", description: "Account (agent id); at most 5 keys per account" },
    contact: { type: "string", description: "Contact email (account when no agent id)" },
    quantity: { type: "string", description: "How many keys, 1 to 5", default: "1" },
    permanent: { type: "boolean", description: "No monthly reset", default: false },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const quantity = Number(args.quantity);
      const body = issueValidator.parse({
        vertical: args.vertical,
        quantity: Number.isInteger(quantity) ? quantity : args.quantity,
        permanent: args.permanent,
        ...(args.label ? { label: args.label } : {}),
        ...(args["agent-id"] ? { agent_id: args["agent-id"] } : {}),
        ...(args.contact ? { contact: args.contact } : {}),
      });
      const vertical = body.vertical === "all" ? "all" : ctx.build.resolveVertical(body.vertical)?.slug;
      if (!vertical) throw unknownVertical(ctx.build, body.vertical, { orAll: true });
      const now = ctx.now();
      const issued = await issueAdminKeys(
        ctx.purchaseDeps,
        {
          vertical,
          quantity: body.quantity ?? 1,
          agentId: body.agent_id,
          contact: body.contact,
          label: body.label,
          permanent: body.permanent ?? false,
        },
        now,
      );
      const keys = await Promise.all(
        issued.map(async (i) => ({ key: i.key, ...(await describeKeyForAdmin(ctx.backend, ctx.limits, i.record, now)) })),
      );
      printResult(
        args.json,
        { keys },
        () =>
          keys.map((k) => `${k.key}  id ${k.id}  ${k.vertical}${k.label ? `  label ${k.label}` : ""}`).join("\n") +
          "\n(each key is shown only now)",
      );
    }),
});

const list = defineCommand({
  meta: { name: "list", description: "List keys, optionally only those with a label" },
  args: { label: { type: "string", description: "Only keys with exactly this label" }, ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const now = ctx.now();
      const records = await ctx.keys.list(args.label ? { label: args.label } : {});
      const keys = await Promise.all(records.map((r) => describeKeyForAdmin(ctx.backend, ctx.limits, r, now)));
      printResult(args.json, { keys }, () => (keys.length ? keys.map(_line).join("\n") : "no keys"));
    }),
});

const show = defineCommand({
  meta: { name: "show", description: "Show one key (by id or full key) with usage and quota" },
  args: { key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" }, ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const record = await _findKey(ctx.keys, args.key);
      const view = await describeKeyForAdmin(ctx.backend, ctx.limits, record, ctx.now());
      printResult(
        args.json,
        view,
        () =>
          `${_line(view)}\n  usage: hour ${view.usage.hour}, day ${view.usage.day}, month ${view.usage.month}\n  created ${view.created_at}${view.revoked_at ? `, revoked ${view.revoked_at}` : ""}`,
      );
    }),
});

const revoke = defineCommand({
  meta: { name: "revoke", description: "Revoke a key (by id or full key); final, and idempotent" },
  args: { key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" }, ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const record = await revokeKey(ctx.keys, { id: (await _findKey(ctx.keys, args.key)).id }, ctx.now(), ctx.audit);
      const view = await describeKeyForAdmin(ctx.backend, ctx.limits, record, ctx.now());
      printResult(args.json, view, () => `revoked ${view.id} at ${view.revoked_at} (running instances refuse it within 1 s)`);
    }),
});

const reroll = defineCommand({
  meta: { name: "reroll", description: "Give a key a new secret; the old one works for the grace period, then is refused" },
  args: {
    key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" },
    "grace-seconds": {
      type: "string",
      description: "How long the old secret keeps working (default 86400, at most 2592000)",
      default: "86400",
    },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const grace = Number(args["grace-seconds"]);
      if (!Number.isInteger(grace) || grace < 0 || grace > REROLL_GRACE_MAX_SECONDS)
        throw new OperatorError("usage", `--grace-seconds must be a whole number from 0 to ${REROLL_GRACE_MAX_SECONDS}`, EXIT.failure);
      const { id } = await _findKey(ctx.keys, args.key);
      const now = ctx.now();
      const rerolled = await rerollKey(ctx.keys, { id }, grace, now, ctx.audit);
      const view = await describeKeyForAdmin(ctx.backend, ctx.limits, rerolled.record, now);
      printResult(
        args.json,
        { key: rerolled.key, previous_valid_until: rerolled.previousValidUntil, ...view },
        () => `${rerolled.key}  id ${view.id}\n(the new secret is shown only now; the old one works until ${rerolled.previousValidUntil})`,
      );
    }),
});

const label = defineCommand({
  meta: { name: "label", description: "Set a key's label (or remove it with --clear)" },
  args: {
    key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" },
    label: { type: "positional", required: false, description: "The new label" },
    clear: { type: "boolean", description: "Remove the label", default: false },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      if ((args.label === undefined) === !args.clear) throw new OperatorError("usage", "give a label, or --clear", EXIT.failure);
      const body = updateValidator.parse({ id: "000000000000", label: args.clear ? null : args.label });
      const { id } = await _findKey(ctx.keys, args.key);
      const record = await updateKey(ctx.keys, { id }, { label: body.label ?? null }, ctx.now(), ctx.audit);
      const view = await describeKeyForAdmin(ctx.backend, ctx.limits, record, ctx.now());
      printResult(args.json, view, () => _line(view));
    }),
});

const expire = defineCommand({
  meta: { name: "expire", description: "Set when a key expires (an ISO date or date-time), or never" },
  args: {
    key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" },
    at: { type: "positional", required: true, description: "2027-01-31, 2027-01-31T12:00:00Z, or never" },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const expiresAt = parseExpiry(args.at, "/at");
      const { id } = await _findKey(ctx.keys, args.key);
      const record = await updateKey(ctx.keys, { id }, { expiresAt }, ctx.now(), ctx.audit);
      const view = await describeKeyForAdmin(ctx.backend, ctx.limits, record, ctx.now());
      printResult(args.json, view, () => `${_line(view)}\n  expires ${view.expires_at ?? "never"}`);
    }),
});

const usage = defineCommand({
  meta: {
    name: "usage",
    description: `A key's metered calls per UTC day over the last ${USAGE_HISTORY_DAYS} days (as GET /api/keys shows its owner)`,
  },
  args: { key: { type: "positional", required: true, description: "Key id (12 hex characters) or the full key" }, ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const record = await _findKey(ctx.keys, args.key);
      const usage = await describeKeyUsage(ctx.backend, ctx.limits, record, ctx.now());
      printResult(
        args.json,
        usage,
        () =>
          `${usage.id}: ${usage.total} calls in the last ${usage.days} days` +
          usage.usage_history.map((d) => `\n  ${d.date}  ${d.requests}`).join(""),
      );
    }),
});

export default defineCommand({
  meta: { name: "keys" },
  subCommands: { create, list, show, revoke, reroll, label, expire, usage },
});

// --- Internal helpers ---

/** The key an id or full key names, or key_not_found with the closest id when one is near (a mistyped id). */
async function _findKey(keys: KeysStore, value: string): Promise<KeyRecord> {
  const record = await findKey(keys, toKeyReference(value));
  if (record) return record;
  const ids = parseKeyString(value) ? [] : (await keys.list({})).map((r) => r.id);
  throw apiError("key_not_found", { detail: `No key "${value.slice(0, 40)}".${didYouMean(value.toLowerCase(), ids)}` });
}

function _line(k: AdminKeyView): string {
  return `${k.id}  ${k.status.padEnd(7)}  ${k.type.padEnd(10)}  ${k.vertical.padEnd(14)}  ${k.label ?? "-"}`;
}
