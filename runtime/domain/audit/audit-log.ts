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
 * Entries are stored by audit-store.ts under names that sort by time, so a time filter, a page
 * and the pruning skip entries without reading them.
 */
import { createHash } from "node:crypto";
import { userInfo } from "node:os";
import type { StateBackend } from "../../state/storage/backend.ts";
import { type AuditAction, type AuditEntry, createAuditStore, newAuditId, timeOfAuditId } from "./audit-store.ts";

export type { AuditAction, AuditEntry } from "./audit-store.ts";

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

export async function appendAudit(backend: StateBackend, input: AuditInput, now: number): Promise<AuditEntry> {
  const entry: AuditEntry = {
    id: newAuditId(now),
    at: new Date(now).toISOString(),
    account: null,
    key_ids: [],
    detail: {},
    ...input,
  };
  await createAuditStore(backend).save(entry);
  return entry;
}

/** Entries matching `filter`, newest first, a page at a time. */
export async function readAudit(backend: StateBackend, filter: AuditFilter): Promise<AuditPage> {
  const limit = Math.min(Math.max(1, filter.limit ?? 100), AUDIT_PAGE_MAX);
  const store = createAuditStore(backend);
  const ids = (await store.ids())
    .filter((id) => {
      const t = timeOfAuditId(id);
      return (filter.from === undefined || t >= filter.from) && (filter.to === undefined || t < filter.to);
    })
    .filter((id) => filter.cursor === undefined || id < filter.cursor)
    .reverse();
  const entries: AuditEntry[] = [];
  let last: string | null = null;
  for (let i = 0; i < ids.length && entries.length < limit; i += 64) {
    const chunk = ids.slice(i, i + 64);
    const read = await Promise.all(chunk.map((id) => store.entry(id)));
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
  const store = createAuditStore(backend);
  const old = (await store.ids()).filter((id) => timeOfAuditId(id) < cutoff);
  for (const id of old) await store.remove(id);
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
