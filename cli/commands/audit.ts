/**
 * `vkr audit`: the audit trail on the service's own store (runtime/domain/audit/audit-log.ts), newest
 * first, with the filters of GET /api/admin/audit.
 */
import { AUDIT_PAGE_MAX, readAudit } from "../../runtime/domain/audit/audit-log.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { withOperatorContext } from "../operator-context.ts";
import { printResult } from "../output.ts";
import { STORE_ARGS } from "../store-args.ts";

export default defineCommand({
  meta: { name: "audit" },
  args: {
    key: { type: "string", description: "Only entries about this key id" },
    account: { type: "string", description: "Only entries about this account" },
    action: { type: "string", description: "An action (key.revoked), or a prefix ending in . (purchase.)" },
    from: { type: "string", description: "From this time (ISO 8601)" },
    to: { type: "string", description: "Before this time (ISO 8601)" },
    limit: { type: "string", description: `Entries to show, 1 to ${AUDIT_PAGE_MAX}`, default: "100" },
    ...STORE_ARGS,
  },
  run: ({ args }) =>
    withOperatorContext(args, async (ctx) => {
      const limit = Number(args.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
        throw new OperatorError("usage", `--limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`, EXIT.failure);
      const page = await readAudit(ctx.backend, {
        keyId: args.key,
        account: args.account?.toLowerCase(),
        action: args.action,
        from: _time("--from", args.from),
        to: _time("--to", args.to),
        limit,
      });
      printResult(args.json, page, () =>
        page.entries.length
          ? page.entries
              .map(
                (e) =>
                  `${e.at}  ${e.actor.padEnd(18)}  ${e.action.padEnd(22)}  ${e.subject}  ${e.outcome}${e.account ? `  account ${e.account}` : ""}`,
              )
              .join("\n")
          : "no entries",
      );
    }),
});

function _time(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || !Number.isFinite(ms))
    throw new OperatorError("usage", `${flag} must be an ISO 8601 date or date-time`, EXIT.failure);
  return ms;
}
