/**
 * The durable record of one purchase (or admin issuance), written before every outside call so a
 * crash at any point leaves enough behind to finish or undo it:
 *
 *   reserved ──► charging ──► charged ──► issued
 *      │  └──► awaiting_payment (card) ──┘   ▲
 *      │              │          │           │ operator: paid
 *      │              │          └──► unconfirmed (outcome unknown, provider not askable again:
 *      ▼              ▼                      │  no keys until an operator says paid or not paid)
 *   released      released ◄─────────────────┘ not paid
 *                                 refund_due (charged, but no client can come back for the keys)
 *
 * `issued`, `released` and `refund_due` are final. Next to the record:
 * - `purchase-open:<id>` while it is not final, so reconciliation lists open purchases without a scan;
 * - `plock:<id>`, a lease (insert-once with expiry): who is working on it now; a crashed worker's
 *   lease runs out and the next one resumes;
 * - `pstep:<id>:<step>`, insert-once markers for steps that must happen at most once whatever
 *   retries and racing resumers do. The `charge` step is taken either by the one charge attempt
 *   (`attempted`) or by a release that fences charging off for good (`fenced`); whoever comes
 *   second learns which it was. The `release` step gives the slots back once; the `mail` step
 *   sends a card purchase's keys once, whichever path issued them.
 */
import type { CohortName } from "../../../shared/schema/catalog.ts";
import type { StateBackend } from "../../../state/storage/backend.ts";
import { keyPart } from "../../../state/storage/key-part.ts";
import { auditPurchase } from "../../audit/audit-purchase.ts";
import type { PaymentMethodId } from "../methods/method-ids.ts";
import type { SealedAnswer } from "./sealed-answer.ts";

export type PurchaseMethod = PaymentMethodId | "admin";
export type PurchaseState = "reserved" | "awaiting_payment" | "charging" | "unconfirmed" | "charged" | "issued" | "released" | "refund_due";

export const FINAL_STATES: ReadonlySet<PurchaseState> = new Set(["issued", "released", "refund_due"]);

export interface PurchaseRecord {
  id: string;
  method: PurchaseMethod;
  state: PurchaseState;
  vertical: string;
  quantity: number;
  cohort: CohortName;
  account: string | null;
  agent_id: string | null;
  contact: string | null;
  label: string | null;
  permanent: boolean;
  /** Account slots held (see accounts/account-slots.ts); their numbers set the graduated prices. */
  positions: number[];
  per_key_usd_micros: number[];
  amount_usd_micros: number;
  /** Whether a client can come back for the keys (Idempotency-Key, the same x402 payment, a card session). */
  resumable: boolean;
  /** The keys this purchase issues, generated at reservation: public ids and hashes only. */
  key_ids: string[];
  key_hashes: string[];
  /** The keys in clear, sealed under a secret only the client (or, for card, the server's Stripe secret) holds; dropped once shown where that is the rule. */
  sealed_keys: SealedAnswer | null;
  payment: { reference: string | null; charged_usd_micros: number | null; unconfirmed: string | null };
  card: { session_id: string; url: string; expires_at: number | null } | null;
  /**
   * Card, new account: its slots (and so the account itself) are taken only once the payment
   * completes, so an unpaid checkout never holds a name (`card-fulfilment.ts`).
   */
  account_pending?: boolean;
  /** Card: the client's pending-checkout place this purchase holds until paid (`card-pending.ts`). */
  pending_place?: string | null;
  /** Payer identifiers worth showing an operator (token jti/sub, x402 payer), never a credential. */
  payer: Record<string, string>;
  /**
   * What the method needs to ask for the charge again after its outcome was lost (x402: the signed
   * payment and the requirements it was verified against, so a retry or reconciliation can settle
   * it). A payment authorization, not a credential of ours, but never logged or listed.
   */
  charge_request?: Record<string, unknown>;
  /**
   * The provider's refusal of this purchase's charge (its error code), recorded the moment it
   * arrives and before the release, so a retry after a store error releases instead of reading an
   * attempted charge as an unknown one.
   */
  charge_refused?: string;
  /**
   * The amount of a prepaid token's ledger this purchase holds (agent_network), recorded before the
   * ledger is touched, so a purchase released with nothing charged gives it back (`token-ledger.ts`).
   */
  ledger_hold?: { jti: string; expires_at: number };
  history: Array<{ state: PurchaseState; at: string; note?: string }>;
  /** Set when an operator handled a refund due or an unconfirmed charge (`vkr payments ack`, with `--outcome` for an `unconfirmed` one). */
  acknowledged_at?: string;
  operator_note?: string;
  created_at: string;
  updated_at: string;
}

export interface PurchaseStore {
  get(id: string): Promise<PurchaseRecord | null>;
  /** Writes the record in `state` (history appended); keeps the open index in step. */
  save(record: PurchaseRecord, state: PurchaseState, now: number, note?: string): Promise<PurchaseRecord>;
  listOpen(): Promise<PurchaseRecord[]>;
  list(filter: { states?: ReadonlySet<PurchaseState> }): Promise<PurchaseRecord[]>;
  /** Takes the work lease for `ms`; false while another worker holds it. */
  lease(id: string, holder: string, ms: number, now: number): Promise<boolean>;
  unlease(id: string, holder: string): Promise<void>;
  /**
   * Takes a step once per purchase: `taken` the first time, and otherwise the value the first
   * taker wrote (`mark`), so a later one knows whether a charge was attempted or fenced off.
   */
  takeStep(id: string, step: "charge" | "release" | "mail", mark: string, now: number): Promise<{ taken: boolean; mark: string }>;
  /** Gives a step back, only if `mark` still holds it (a send that definitely failed). */
  untakeStep(id: string, step: "mail", mark: string): Promise<void>;
  /** The purchase a card session belongs to. */
  bySession(sessionId: string): Promise<PurchaseRecord | null>;
  indexSession(sessionId: string, id: string): Promise<void>;
  /** True only the first time: a card purchase's keys are shown on one success page, once. */
  showOnce(id: string, now: number): Promise<boolean>;
}

export function createPurchaseStore(backend: StateBackend): PurchaseStore {
  const records = backend.records;
  const store: PurchaseStore = {
    get: (id) => records.getItem<PurchaseRecord>(`purchase:${id}`),
    async save(record, state, now, note) {
      const at = new Date(now).toISOString();
      const next: PurchaseRecord = {
        ...record,
        state,
        updated_at: at,
        history: [...record.history, { state, at, ...(note ? { note } : {}) }],
      };
      // A final purchase is never charged again: the signed payment kept to settle it leaves the
      // record, so what could open its sealed answer is held only while the charge is open.
      if (FINAL_STATES.has(state)) delete next.charge_request;
      // Open index first, record second, index removal last: a crash between them leaves an
      // index entry for a final record (harmless, skipped and cleaned when listed), never an
      // open record that reconciliation cannot find.
      if (!FINAL_STATES.has(state)) await records.setItem(`purchase-open:${record.id}`, 1);
      await records.setItem(`purchase:${record.id}`, next);
      if (FINAL_STATES.has(state)) await records.removeItem(`purchase-open:${record.id}`);
      await auditPurchase(backend, record, state, now);
      return next;
    },
    async listOpen() {
      const ids = (await records.getKeys("purchase-open:")).map((k) => k.slice(k.indexOf(":") + 1));
      const found = await Promise.all(ids.map((id) => store.get(id)));
      const open: PurchaseRecord[] = [];
      for (const [i, record] of found.entries()) {
        if (record && !FINAL_STATES.has(record.state)) open.push(record);
        else await records.removeItem(`purchase-open:${ids[i]}`);
      }
      return open.sort(_byCreation);
    },
    async list({ states }) {
      const keys = await records.getKeys("purchase:");
      const all = await Promise.all(keys.map((k) => records.getItem<PurchaseRecord>(k)));
      return all.filter((r): r is PurchaseRecord => r !== null && (!states || states.has(r.state))).sort(_byCreation);
    },
    async lease(id, holder, ms, now) {
      const taken = await backend.insertOnce(`plock:${id}`, holder, now + ms, now);
      return taken.created || taken.value === holder;
    },
    async unlease(id, holder) {
      await backend.removeOnce(`plock:${id}`, holder);
    },
    async takeStep(id, step, mark, now) {
      const result = await backend.insertOnce(`pstep:${id}:${step}`, mark, null, now);
      return { taken: result.created, mark: result.value };
    },
    async untakeStep(id, step, mark) {
      await backend.removeOnce(`pstep:${id}:${step}`, mark);
    },
    async bySession(sessionId) {
      const id = await records.getItem<string>(`card-session:${keyPart(sessionId)}`);
      return id ? store.get(id) : null;
    },
    async indexSession(sessionId, id) {
      await records.setItem(`card-session:${keyPart(sessionId)}`, id);
    },
    async showOnce(id, now) {
      return (await backend.insertOnce(`card-shown:${id}`, String(now), null, now)).created;
    },
  };
  return store;
}

// --- Internal helpers ---

function _byCreation(a: PurchaseRecord, b: PurchaseRecord): number {
  return a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}
