/** Stage emit: the four node variants, the index graphs, catalogue and status. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDiagnostics } from "../../build/diagnostics.ts";
import { buildContent } from "../../build/index.ts";
import { compileSchema } from "../../build/schema/validator.ts";
import { emitArtifact } from "../../build/stages/emit.ts";
import { toUsd } from "../../build/stages/unlock.ts";
import { NodeResponseSchema } from "../../runtime/shared/schema/artifacts.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

async function files() {
  const tmp = createTempDir();
  const result = await buildContent({ contentDir: materializeFixture(tmp), outDir: join(tmp, "dist"), rootDir: tmp, write: false });
  const read = (path: string) => JSON.parse(result.files!.get(path)!);
  return { result, read };
}

describe("emit", () => {
  it("full: all four layers, next_nodes with titles, wrapper fields, compiled logic", async () => {
    const { read } = await files();
    const full = read("verticals/travel/nodes/trv-start.json");
    expect(full.vertical).toBe("travel");
    expect(full.next_nodes).toEqual([
      { id: "trv-compensation", title: "Compensation for a long delay" },
      { id: "trv-care", title: "Care during a delay" },
    ]);
    expect(Object.keys(full.node.layers)).toEqual(["action", "directive", "logic", "skill"]);
    expect(full.node.locked_layers).toEqual([]);
    expect(full.node.layers.logic.rules.map((r: { id: string }) => r.id)).toEqual(["departs-eu", "arrives-eu-carrier"]);
    expect(full.node.layers.logic.token_estimate).toBe(full.node.layer_tokens.logic);
    expect(full.node.layer_tokens.logic).toBeGreaterThan(full.node.layer_tokens.action);
    expect(full.cta).toBe("Call to action: POST /api/trial or POST /api/checkout.");
    expect(full.node).toMatchObject({ trial: true, created: "2026-11-01T00:00:00Z", status: "active" });
  });

  it("lean: node and next_nodes only; locked: no layers, all four listed, cta says how to unlock", async () => {
    const { read } = await files();
    const full = read("verticals/travel/nodes/trv-start.json");
    expect(read("verticals/travel/nodes/trv-start.lean.json")).toEqual({ node: full.node, next_nodes: full.next_nodes });
    const locked = read("verticals/travel/nodes/trv-start.locked.json");
    expect(locked.node.layers).toEqual({});
    expect(locked.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    expect(locked.node.layer_tokens).toEqual(full.node.layer_tokens);
    expect(locked.cta).toContain("POST /api/trial");
    expect(locked.cta).toContain('"vertical": "travel"');
    expect(locked.cta).toContain("pay-network-pay-id");
    expect(locked.cta).toContain("$0.002");
    // Not a trial module: no trial offer.
    expect(read("verticals/travel/nodes/trv-care.locked.json").cta).not.toContain('"vertical": "travel"');
    // The same, machine-readable, in the full locked form.
    expect(locked.unlock).toEqual({
      trial: { method: "POST", path: "/api/trial", body: { vertical: "travel" }, calls: 500, hours: 24 },
      membership: { vertical: "travel", any_membership: false, method: "POST", path: "/api/checkout", checkout_info: "/api/checkout" },
      per_use: { header: "pay-network-pay-id", price_usd: "0.002" },
      pay_per_read: { method: "http402", path: "/api/demo?vertical=travel&node=trv-start&pay=x402", price_usd: "0.002" },
    });
    expect(read("verticals/travel/nodes/trv-care.locked.json").unlock.trial).toBeUndefined();
    expect(read("verticals/travel/nodes/trv-care.locked.lean.json")).toEqual({
      node: expect.objectContaining({ layers: {} }),
      next_nodes: [{ id: "trv-claims", title: "Filing a claim" }],
    });
  });

  it("index graph with wrapper, lean index without", async () => {
    const { read } = await files();
    const index = read("verticals/travel/index.json");
    expect(index).toMatchObject({ vertical: "travel", status: "live", root: "trv-start", title: "Travel (fixture)" });
    expect(index.nodes[0]).toMatchObject({ id: "trv-start", order: 1, next_nodes: ["trv-compensation", "trv-care"], trial: true });
    const lean = read("verticals/travel/index.lean.json");
    expect(lean.cta).toBeUndefined();
    expect(lean.nodes).toEqual(index.nodes);
  });

  it("the index reports each node's full and lean size in bytes, as served", async () => {
    const { result, read } = await files();
    const index = read("verticals/travel/index.json");
    expect(index.nodes.length).toBeGreaterThan(0);
    for (const entry of index.nodes) {
      expect(entry.full_bytes).toBe(Buffer.byteLength(result.files!.get(`verticals/travel/nodes/${entry.id}.json`)!));
      expect(entry.lean_bytes).toBe(Buffer.byteLength(result.files!.get(`verticals/travel/nodes/${entry.id}.lean.json`)!));
      expect(entry.lean_bytes).toBeLessThan(entry.full_bytes);
    }
  });

  it("catalogue: statuses, counts, aliases in one slug map; status counts from content", async () => {
    const { read } = await files();
    const catalog = read("catalog.json");
    expect(catalog.slugs).toEqual({
      "ai-compliance": "ai-compliance",
      ethics: "ai-compliance",
      travel: "travel",
      traversal: "traversal",
      logistics: "logistics",
      legal: "legal",
    });
    expect(
      catalog.verticals.map((v: { slug: string; status: string; node_count: number }) => `${v.slug}:${v.status}:${v.node_count}`),
    ).toEqual(["ai-compliance:planned:0", "travel:live:4", "traversal:live:2", "logistics:coming_soon:0", "legal:planned:0"]);
    const status = read("status.json");
    expect(status.travel).toMatchObject({ module_count: 4, trial_modules: 2 });
    expect(status.ai_compliance.node_count).toBe(0);
    expect(status.cohort_progression.credit_examples).toEqual({ inaugural: "$1.90", core: "$4.90", growth: "$9.90", scale: "$14.90" });
  });

  it("self-check: an artifact that breaks the contract is reported as artifact_invalid", () => {
    const diagnostics = createDiagnostics();
    emitArtifact("verticals/x/nodes/y.json", { vertical: "x" }, compileSchema(NodeResponseSchema), {
      diagnostics,
      sink: { write: () => "", reuse: () => false },
    });
    expect(diagnostics.hasFatal()).toBe(true);
    expect(diagnostics.issues[0]).toMatchObject({ code: "artifact_invalid", file: "dist/data/verticals/x/nodes/y.json" });
  });

  it("toUsd formats micro-dollars exactly", () => {
    expect([toUsd(2000), toUsd(1_900_000), toUsd(19_000_000), toUsd(14_900_000), toUsd(1_500_000)]).toEqual([
      "$0.002",
      "$1.90",
      "$19",
      "$14.90",
      "$1.50",
    ]);
  });
});
