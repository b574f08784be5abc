/**
 * Stored state has owners: only the files declared here build a store key or call the backend's
 * data operations (records, counters, insert-once entries, lists). Everything else asks an owner,
 * so a key's shape is written once and data stored today still reads tomorrow. The list is the
 * one declaration of the owners (docs/architecture.md, "Stored state", describes it).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../build/_fixtures.ts";

interface StateOwner {
  /** A file, or a folder (ending in "/") whose every file owns the namespaces. */
  path: string;
  /** The key prefixes (before the first ":") it owns. */
  namespaces: string[];
}

const STATE_OWNERS: StateOwner[] = [
  // The state room: the backends themselves and the typed stores beside them.
  {
    path: "runtime/state/storage/",
    namespaces: ["keys", "accounts", "credits", "waitlist", "interest", "seats", "cohort-members", "pov", "trial"]
      // The one per-client limiter (client-limiter.ts) builds every per-client window key.
      .concat(["rate", "trialrate", "adminfail", "adminwrong", "waitlist-new", "interest-anon", "interest-new"]),
  },
  { path: "runtime/edges/tracing/traced-backend.ts", namespaces: [] },
  // Typed stores beside their domain.
  { path: "runtime/state/releases/release-store.ts", namespaces: ["releases"] },
  { path: "runtime/domain/accounts/account-slots.ts", namespaces: ["acctslot", "acctcap"] },
  { path: "runtime/domain/metering/quota.ts", namespaces: ["q"] },
  { path: "runtime/domain/metering/usage-history-store.ts", namespaces: ["usage", "usage-fold"] },
  { path: "runtime/domain/audit/audit-store.ts", namespaces: ["audit"] },
  { path: "runtime/domain/delta/cursor-secret.ts", namespaces: ["delta"] },
  { path: "runtime/domain/cohorts/active-cohort.ts", namespaces: ["cohort"] },
  { path: "runtime/domain/cohorts/seat-ledger-store.ts", namespaces: ["seats", "cohort-seats"] },
  { path: "runtime/domain/cohorts/cohort-store.ts", namespaces: ["cohort-member", "poo"] },
  { path: "runtime/domain/growth/referral-store.ts", namespaces: ["referral", "referral-counted", "referral-cap"] },
  { path: "runtime/domain/growth/waitlist-store.ts", namespaces: ["waitlist"] },
  { path: "runtime/domain/growth/interest-store.ts", namespaces: ["interest"] },
  { path: "runtime/domain/growth/proof-of-value-store.ts", namespaces: ["pov"] },
  {
    path: "runtime/domain/payments/purchases/purchase-store.ts",
    namespaces: ["purchase", "purchase-open", "plock", "pstep", "card-session", "card-shown"],
  },
  { path: "runtime/domain/payments/purchases/idempotency-store.ts", namespaces: ["idem", "x402"] },
  { path: "runtime/domain/payments/per-use/token-ledger-store.ts", namespaces: ["payledger", "payhold"] },
  { path: "runtime/domain/payments/per-use/charge-batch-store.ts", namespaces: ["peruse", "payreserved", "paysettled"] },
  { path: "runtime/domain/payments/methods/x402/x402-read-store.ts", namespaces: ["x402read"] },
  // Unpaid card checkouts per client: numbered insert-once places, not a window, so not the limiter's.
  { path: "runtime/domain/payments/methods/card/card-pending.ts", namespaces: ["cardpending"] },
];

/** Literals that start like a key but name something else; each says what it is. */
const NOT_STORE_KEYS: Array<{ path: string; literal: string; why: string }> = [
  { path: "runtime/domain/payments/purchases/purchase-flow.ts", literal: '"purchase:', why: "failpoint names" },
  { path: "runtime/domain/payments/purchases/purchase-keys.ts", literal: '"purchase:', why: "a failpoint name" },
  { path: "runtime/domain/payments/purchases/purchase-keys.ts", literal: "`purchase:", why: "the sealed keys' associated data" },
  { path: "runtime/domain/payments/methods/card/card-fulfilment.ts", literal: '"purchase:', why: "a failpoint name" },
  { path: "runtime/domain/payments/purchases/issue-keys.ts", literal: '"trial:', why: "a failpoint name" },
  { path: "runtime/domain/audit/audit-purchase.ts", literal: "`purchase:", why: "an audit entry's subject" },
];

/** The backend's data operations, on the backend or on its unstorage records. */
const RAW_CALL =
  /\b(?:backend\??\.(?:records|consume|readCounters|insertOnce|removeOnce|claimPosition|countList|recordPages)|records\??\.(?:getItem|setItem|removeItem|hasItem|getKeys|getItems|setItems|getMeta|clear))\b/;

function runtimeFiles(dir = join(REPO_ROOT, "runtime")): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return runtimeFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [relative(REPO_ROOT, full).split("\\").join("/")] : [];
  });
}

/** Comments name keys to explain them; only code counts. */
function codeOf(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, "")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function ownerOf(file: string): StateOwner | undefined {
  return STATE_OWNERS.find((o) => (o.path.endsWith("/") ? file.startsWith(o.path) : file === o.path));
}

/** What a file outside the owners does that only an owner may: `file:line what`. */
function stateViolations(file: string, source: string): string[] {
  if (ownerOf(file)) return [];
  const namespaces = [...new Set(STATE_OWNERS.flatMap((o) => o.namespaces))].sort((a, b) => b.length - a.length);
  const keyLiteral = new RegExp(`["'\`](?:${namespaces.map((n) => n.replace(/[-]/g, "\\-")).join("|")}):(?=[^\\s"'])`, "g");
  const excused = NOT_STORE_KEYS.filter((e) => e.path === file).map((e) => e.literal);
  return codeOf(source)
    .split("\n")
    .flatMap((line, i) => {
      const found: string[] = [];
      const call = RAW_CALL.exec(line);
      if (call) found.push(`${file}:${i + 1} calls the backend (${call[0]})`);
      for (const m of line.matchAll(keyLiteral)) if (!excused.includes(m[0])) found.push(`${file}:${i + 1} builds a store key (${m[0]}…)`);
      return found;
    });
}

describe("contract: stored state has owners", () => {
  const files = runtimeFiles();

  it("declares owners that exist", () => {
    const missing = STATE_OWNERS.filter((o) => !files.some((f) => (o.path.endsWith("/") ? f.startsWith(o.path) : f === o.path)));
    expect(missing.map((o) => o.path)).toEqual([]);
  });

  it("no file outside the owners builds a store key or calls the backend", () => {
    const offenders = files.flatMap((f) => stateViolations(f, readFileSync(join(REPO_ROOT, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("catches a route that calls the backend or spells a key", () => {
    const route = 'const n = await deps.backend.countList("pov:trial-keys");\nawait deps.backend.records.getItem(`keys:${hash}`);';
    expect(stateViolations("runtime/edges/routes/example.ts", route)).toEqual([
      "runtime/edges/routes/example.ts:1 calls the backend (backend.countList)",
      'runtime/edges/routes/example.ts:1 builds a store key ("pov:…)',
      "runtime/edges/routes/example.ts:2 calls the backend (backend.records)",
      "runtime/edges/routes/example.ts:2 builds a store key (`keys:…)",
    ]);
    expect(stateViolations("runtime/edges/routes/example.ts", "// a comment on `keys:<hash>`\nconst x = 1;")).toEqual([]);
  });
});
