/**
 * The sections of the API reference: each operation is filed under one tag by its path, so the
 * rendered /docs has a navigation of a few groups instead of one long list.
 */
export const TAGS = [
  { name: "Knowledge", description: "Nodes, indexes, search, rule evaluation and the change feed" },
  { name: "MCP", description: "The same knowledge for MCP clients (Streamable HTTP, JSON-RPC 2.0)" },
  { name: "Keys", description: "Trial keys, key details and verification, admin issuance and revocation" },
  { name: "Payments", description: "Checkout, the card success page, webhooks and payment administration" },
  { name: "Community", description: "Waitlist, demand signals, telemetry and referrals" },
  { name: "Pages", description: "Pages for people and documents for agents: home, browse site, llms.txt" },
  { name: "Operations", description: "Status, health, readiness and metrics" },
] as const;

type TagName = (typeof TAGS)[number]["name"];

const BY_PREFIX: Array<[RegExp, TagName]> = [
  [/^\/(api\/(demo|search|evaluate)|v1\/delta)/, "Knowledge"],
  [/^\/mcp/, "MCP"],
  [/^\/api\/(trial|keys|verify|admin\/keys)/, "Keys"],
  [/^\/(api\/checkout|api\/admin\/payments|checkout)/, "Payments"],
  [/^\/api\/(waitlist|interest|telemetry|referral)/, "Community"],
  [/^\/(api\/status|healthz|readyz|metrics)/, "Operations"],
];

/** @example tagOf("/api/demo") === "Knowledge"; tagOf("/browse/{vertical}") === "Pages" */
export function tagOf(path: string): TagName {
  return BY_PREFIX.find(([re]) => re.test(path))?.[1] ?? "Pages";
}
