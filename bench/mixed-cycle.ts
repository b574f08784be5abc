/**
 * The mixed-traffic cycle `bench/run.ts` and `bench/ab.ts` both drive, so their mixed rows
 * compare: 2,000 requests in a fixed shuffled order over the given keys and nodes of the travel
 * vertical: 40% full node, 40% lean node, 10% anonymous index, 5% /api/evaluate, 5% MCP get_node.
 */
import type { CycleRequest } from "./load-tools.ts";

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** A `tools/call get_node` request body for a travel node. */
export function getNodeCall(node: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_node", arguments: { vertical: "travel", node } },
  });
}

export function mixedCycle(keys: string[], nodes: string[]): CycleRequest[] {
  let seed = 18;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: 2000 }, (_, i): CycleRequest => {
    const key = keys[i % keys.length]!;
    const n = nodes[Math.floor(random() * nodes.length)]!;
    const roll = random() * 100;
    if (roll < 40) return { method: "GET", path: `/api/demo?vertical=travel&node=${n}`, headers: { "x-service-key": key } };
    if (roll < 80) return { method: "GET", path: `/api/demo?vertical=travel&node=${n}&lean=true`, headers: { "x-service-key": key } };
    if (roll < 90) return { method: "GET", path: "/api/demo?vertical=travel", headers: {} };
    if (roll < 95)
      return {
        method: "POST",
        path: "/api/evaluate",
        headers: { "x-service-key": key, "content-type": "application/json" },
        body: JSON.stringify({ vertical: "travel", node: n, facts: {} }),
      };
    return { method: "POST", path: "/mcp", headers: { ...MCP_HEADERS, "x-service-key": key }, body: getNodeCall(n) };
  });
}
