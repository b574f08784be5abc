/**
 * The HTML of the card success page: plain markup with inline styles, every value escaped, no
 * script (the page's CSP allows none). While payment is pending it refreshes itself with a meta
 * refresh, which needs no script.
 */

import { escapeHtml } from "../../../../shared/http/escape-html.ts";
import type { CardSuccessView } from "./card-success.ts";

export function renderCardSuccess(view: CardSuccessView): string {
  const body = _body(view);
  const refresh = view.status === "awaiting_payment" || view.status === "processing" ? `<meta http-equiv="refresh" content="3">` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<meta name="referrer" content="no-referrer"><title>${escapeHtml(body.title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
code{font:15px ui-monospace,monospace;background:#eef1f6;padding:.2rem .4rem;border-radius:4px;word-break:break-all}
li{margin:.4rem 0}.warn{background:#fff5d6;border-left:4px solid #e0a800;padding:.6rem .9rem}</style></head>
<body><h1>${escapeHtml(body.title)}</h1>${body.html}</body></html>`;
}

// --- Internal helpers ---

function _body(view: CardSuccessView): { title: string; html: string } {
  switch (view.status) {
    case "keys":
      return {
        title: "Your membership keys",
        html: `<p class="warn">These keys are shown <strong>only now</strong>. Copy them somewhere safe before you leave this page.</p>
<ul>${view.keys.map((k) => `<li><code>${escapeHtml(k.key)}</code> (${escapeHtml(k.vertical)}, ${escapeHtml(k.cohort)} cohort)</li>`).join("")}</ul>
<p>Send one in the <code>X-Service-Key</code> header of every request.${view.mailed_to ? ` They were also mailed to ${escapeHtml(view.mailed_to)}.` : ""}</p>
<p>Purchase <code>${escapeHtml(view.purchase_id)}</code>.</p>`,
      };
    case "already_shown":
      return {
        title: "Keys already shown",
        html: `<p>The keys of purchase <code>${escapeHtml(view.purchase_id)}</code> were shown once on this page and are not shown again.${view.mailed_to ? ` They were mailed to ${escapeHtml(view.mailed_to)}.` : " If you did not keep them, contact support with the purchase id."}</p>`,
      };
    case "awaiting_payment":
      return {
        title: "Waiting for the payment",
        html: `<p>Stripe has not confirmed the payment yet. This page reloads by itself; your keys appear here once it is confirmed.</p>`,
      };
    case "processing":
      return {
        title: "Issuing your keys",
        html: `<p>Stripe confirmed the payment and your keys are being issued. This page reloads by itself; they appear here in a moment.</p>`,
      };
    case "not_completed":
      return {
        title: "Purchase not completed",
        html: `<p>Purchase <code>${escapeHtml(view.purchase_id)}</code> did not complete (${escapeHtml(view.state)}). Nothing was issued${view.state === "refund_due" ? "; the payment is recorded for a refund" : ""}.</p>`,
      };
    default:
      return { title: "Unknown checkout", html: "<p>This checkout session is not known here.</p>" };
  }
}
