/**
 * `vkr payments list | reconcile | ack`: the purchases on the service's own store, through the same
 * functions as the admin routes and the server's own reconciliation pass (runtime/domain/payments/purchases/reconcile.ts).
 */

import { createPaymentProviders } from "../../runtime/domain/payments/providers/create-providers.ts";
import {
  acknowledgePurchase,
  acknowledgeRefused,
  listPurchasesForOperator,
  type ReconcileEntry,
  reconcilePurchases,
} from "../../runtime/domain/payments/purchases/reconcile.ts";
import { formatUsd } from "../../runtime/shared/money.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { withOperatorContext } from "../operator-context.ts";
import { printResult } from "../output.ts";
import { STORE_ARGS } from "../store-args.ts";

const list = defineCommand({
  meta: { name: "list", description: "List open purchases and those an operator must act on (changes nothing)" },
  args: { ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const report = await listPurchasesForOperator(ctx.backend, ctx.now());
      printResult(args.json, report, () => [_section("open", report.open), _section("needs an operator", report.attention)].join("\n"));
    }),
});

const reconcile = defineCommand({
  meta: { name: "reconcile", description: "Finish or undo every purchase a crash left open; list refunds due and unconfirmed charges" },
  args: { ...STORE_ARGS },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const report = await reconcilePurchases({ ...ctx.purchaseDeps, payments: createPaymentProviders(ctx.config.payments) }, ctx.now());
      printResult(args.json, report, () =>
        [
          _section("resolved now", report.resolved),
          _section("still open", report.open),
          _section("needs an operator", report.attention),
        ].join("\n"),
      );
    }),
});

const ack = defineCommand({
  meta: {
    name: "ack",
    description: "Mark a refund due or an unconfirmed charge as handled; settle a purchase waiting unconfirmed with --outcome",
  },
  args: {
    id: { type: "positional", required: true, description: "Purchase id (pur_…)" },
    note: { type: "string", required: true, description: 'What you did, e.g. "refunded in the network dashboard"' },
    outcome: {
      type: "string",
      description: "For a purchase waiting unconfirmed, what the provider says: paid (issue its keys) or not_paid (release it)",
    },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const outcome = args.outcome;
      if (outcome !== undefined && outcome !== "paid" && outcome !== "not_paid")
        // A bad flag value is a usage error (exit 1), like an unknown flag; exit 2 means a bad environment.
        throw new OperatorError("usage", `--outcome is paid or not_paid, not "${String(outcome).slice(0, 40)}"`, EXIT.failure);
      const done = await acknowledgePurchase(ctx.purchaseDeps, { id: args.id, note: args.note, outcome }, ctx.now());
      if (!done.ok)
        throw new OperatorError(
          done.reason,
          acknowledgeRefused(done.reason, args.id).message,
          done.reason === "not_found" ? EXIT.notFound : EXIT.refused,
        );
      const record = done.record;
      printResult(
        args.json,
        { id: record.id, state: record.state, acknowledged_at: record.acknowledged_at },
        () => `acknowledged ${record.id} (${record.state})`,
      );
    }),
});

export default defineCommand({
  meta: { name: "payments" },
  subCommands: { list, reconcile, ack },
});

// --- Internal helpers ---

function _section(title: string, entries: ReconcileEntry[]): string {
  if (entries.length === 0) return `${title}: none`;
  return `${title}:\n${entries.map((e) => `  ${e.id}  ${e.method.padEnd(13)} ${e.state.padEnd(16)} ${formatUsd(e.amount_usd_micros).padStart(5)}  ${e.action}`).join("\n")}`;
}
