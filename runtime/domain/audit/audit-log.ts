/**
 * The audit trail: every administrative and money event, appended to the state store (SQLite or
 * Redis, like everything else an instance shares) with its time, actor, action, subject and
 * outcome. Read by `vkr audit` and `GET /api/admin/audit`, newest first, and pruned after
 * AUDIT_RETENTION_DAYS.
 *
 * Never a secret: entries are built here from ids (the public key id, the purchase id), names
 * and amounts only; an actor is named by a digest prefix (an admin bearer) or a public key id,
 * never by what it presented. `test/people/audit.e2e.test.ts` drives every action and scans the
 * trail for keys, bearers, payment tokens and card data.
 *
 * Entries are records `audit:<time>:<random>`: the time in the name sorts them and lets a time
 * filter, a page and the pruning skip entries without reading them.
 */
import { createHash, randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import type { StateBackend } from "../../state/storage/backend.ts";

export type AuditAction =
  | "key.issued"
  | "key.revoked"
  | "key.rerolled"
  | "key.relabelled"
  | "key.expiry_set"
  | "purchase.reserved"
  | "purchase.awaiting_payment"
  | "purchase.charging"
  | "purchase.charged"
  | "purchase.issued"
  | "purchase.released"
  | "purchase.refund_due"
  | "purchase.refunded"
  | "purchase.acknowledged"
  | "purchase.unconfirmed"
  | "payments.configured"
  | "release.published"
  | "release.rolled_back";

export interface AuditEntry {
  id: string;
  at: string;
  /** `admin:<digest prefix of the bearer>`, `cli:<os user>`, `key:<key id>`, `payment:<method>`, `system`. */
  actor: string;
  action: AuditAction;
  /** `key:<id>`, `purchase:<id>`, `method:<id>`, `release:<build id>`. */
  subject: string;
  outcome: string;
  /** The account concerned, when there is one (folded agent id or contact). */
  account: string | null;
  /** Public ids of the keys concerned. */
  key_ids: string[];
  /** Plain facts (amounts, states, the grace period, a release's previous build); never a secret. */
  detail: Record<string, string | number | boolean | null>;
}

export type AuditInput = Omit<AuditEntry, "id" | "at" | "account" | "key_ids" | "detail"> &
  Partial<Pick<AuditEntry, "account" | "key_ids" | "detail">>;

export interface AuditFilter {
  keyId?: string;
  account?: string;
  /** An action, or a prefix ending in `.` (`purchase.`). */
  action?: string;
  from?: number;
  to?: number;
  /** The `next` of the previous page. */
  cursor?: string;
  limit?: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  next: string | null;
}

/** Default days an entry is kept (AUDIT_RETENTION_DAYS). */
export const AUDIT_RETENTION_DAYS_DEFAULT = 400;
export const AUDIT_PAGE_MAX = 500;

const PREFIX = "audit:";

export async function appendAudit(backend: StateBackend, input: AuditInput, now: number): Promise<AuditEntry> {
  const id = `${String(now).padStart(15, "0")}:${randomBytes(6).toString("hex")}`;
  const entry: AuditEntry = {
    id,
    at: new Date(now).toISOString(),
    account: null,
    key_ids: [],
    detail: {},
    ...input,
  };
  await backend.records.setItem(PREFIX + id, entry);
  return entry;
}

/** Entries matching `filter`, newest first, a page at a time. */
export async function readAudit(backend: StateBackend, filter: AuditFilter): Promise<AuditPage> {
  const limit = Math.min(Math.max(1, filter.limit ?? 100), AUDIT_PAGE_MAX);
  const ids = (await _ids(backend))
    .filter((id) => {
      const t = _timeOf(id);
      return (filter.from === undefined || t >= filter.from) && (filter.to === undefined || t < filter.to);
    })
    .filter((id) => filter.cursor === undefined || id < filter.cursor)
    .reverse();
  const entries: AuditEntry[] = [];
  let last: string | null = null;
  for (let i = 0; i < ids.length && entries.length < limit; i += 64) {
    const chunk = ids.slice(i, i + 64);
    const read = await Promise.all(chunk.map((id) => backend.records.getItem<AuditEntry>(PREFIX + id)));
    for (const [j, entry] of read.entries()) {
      last = chunk[j]!;
      if (entry && _matches(entry, filter)) entries.push(entry);
      if (entries.length === limit) break;
    }
  }
  const more = last !== null && ids.indexOf(last) < ids.length - 1;
  return { entries, next: more ? last : null };
}

/** Deletes entries older than `retentionDays`; returns how many. */
export async function pruneAudit(backend: StateBackend, retentionDays: number, now: number): Promise<number> {
  const cutoff = now - retentionDays * 86_400_000;
  const old = (await _ids(backend)).filter((id) => _timeOf(id) < cutoff);
  for (const id of old) await backend.records.removeItem(PREFIX + id);
  return old.length;
}

/** How an admin bearer is named in the trail: a digest prefix, so two bearers differ and neither can be read back. */
export function adminActor(bearer: string | undefined): string {
  return `admin:${createHash("sha256")
    .update(bearer ?? "")
    .digest("hex")
    .slice(0, 8)}`;
}

/** The operator running the CLI. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}

/** Who does an administrative action, and the store its trail goes to. */
export interface AuditContext {
  backend: StateBackend;
  actor: string;
}

/** The trail entry of an action on one key. */
export function auditKey(
  audit: AuditContext,
  action: AuditAction,
  record: { id: string; account: string | null },
  now: number,
  detail: AuditEntry["detail"] = {},
): Promise<AuditEntry> {
  return appendAudit(
    audit.backend,
    { actor: audit.actor, action, subject: `key:${record.id}`, outcome: "ok", account: record.account, key_ids: [record.id], detail },
    now,
  );
}

// --- Internal helpers ---

async function _ids(backend: StateBackend): Promise<string[]> {
  // Both stores may report keys with their own separators; the id is what follows the prefix.
  return (await backend.records.getKeys(PREFIX))
    .map((k) => k.slice(k.indexOf(PREFIX) + PREFIX.length))
    .filter((id) => /^\d{15}:[0-9a-f]{12}$/.test(id))
    .sort();
}

function _timeOf(id: string): number {
  return Number(id.slice(0, 15));
}

function _matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.keyId !== undefined && !entry.key_ids.includes(filter.keyId) && entry.subject !== `key:${filter.keyId}`) return false;
  if (filter.account !== undefined && entry.account !== filter.account) return false;
  if (
    filter.action !== undefined &&
    !(filter.action.endsWith(".") ? entry.action.startsWith(filter.action) : entry.action === filter.action)
  )
    return false;
  return true;
}
