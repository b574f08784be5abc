/**
 * Credits are real money: referral and loyalty credit owed to an account is taken off its next
 * renewal. When Stripe drafts a renewal invoice (`invoice.created`, billing reason
 * `subscription_cycle`; the first invoice is the purchase itself), the account's credit, up to
 * the amount due, is added to that draft as a negative line item. Exactly once per invoice: the
 * credit ledger takes the amount once per invoice id (`credits-store.ts`), and Stripe's own
 * idempotency key makes a redelivered event add the same line once. A failure answers non-2xx,
 * so Stripe delivers the event again and the same amount is applied.
 */
import { formatUsd } from "../../../../shared/money.ts";
import { createCreditsStore } from "../../../../state/storage/credits-store.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import type { WebhookOutcome } from "../../payment-schemas.ts";
import type { CardInvoice } from "../../providers/card.ts";

export async function applyInvoiceCredit(deps: DomainDeps, invoice: CardInvoice, now: number): Promise<WebhookOutcome> {
  const account = invoice.metadata.account;
  if (invoice.billingReason !== "subscription_cycle" || !account) return "no_credit";
  // Only a draft takes new lines; Stripe finalises drafts about an hour after creating them.
  if (invoice.status !== null && invoice.status !== "draft") return "no_credit";
  const amount = await createCreditsStore(deps.backend).takeForInvoice(account, invoice.id, invoice.amountDueMicros, now);
  if (amount === 0) return "no_credit";
  await deps.payments.card!.stripe.addInvoiceCredit(
    { invoice, amountMicros: amount, description: `Referral and loyalty credit (${formatUsd(amount)})` },
    { idempotencyKey: `vkr-credit-${invoice.id}` },
  );
  deps.logger.info("credit applied to renewal", { invoice: invoice.id, amount_usd_micros: amount });
  return "credit_applied";
}
