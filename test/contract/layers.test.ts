/**
 * The runtime's layers hold (runtime/import-layers.json, docs/architecture.md#layers): no import
 * points up a layer, no run-time import circle, and build/ imports only the shared layer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf, layerOf, readLayers, resolveSpecifier, sourceFiles } from "../../scripts/import-graph.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

const declaration = readLayers(REPO_ROOT);

function edgesOf(folders: string[]): Edge[] {
  return sourceFiles(REPO_ROOT, folders).flatMap((from) =>
    importsOf(readFileSync(join(REPO_ROOT, from), "utf8"))
      .filter((ref) => ref.specifier.startsWith("."))
      .map((ref) => ({ from, to: resolveSpecifier(from, ref.specifier), typeOnly: ref.typeOnly })),
  );
}

/** Strongly connected components of more than one file (or a file importing itself), Tarjan's way. */
function circles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("contract: layers", () => {
  const runtime = edgesOf(["runtime"]).filter((e) => e.to.startsWith("runtime/"));

  it("finds imports to check", () => {
    expect(runtime.length).toBeGreaterThan(100);
  });

  it("every runtime file belongs to a declared layer", () => {
    const undeclared = sourceFiles(REPO_ROOT, ["runtime"]).filter((f) => !layerOf(f, declaration));
    expect(undeclared, "declare it in runtime/import-layers.json").toEqual([]);
  });

  it("no import points up a layer, not even for types", () => {
    // The deps each layer is handed are declared in it (domain/domain-deps.ts, edges/edge-deps.ts,
    // domain/runtime-config.ts), so nothing below the wiring names runtime/deps.ts or runtime/config.ts.
    const upward = runtime.filter((e) => {
      const from = layerOf(e.from, declaration);
      const to = layerOf(e.to, declaration);
      return from !== undefined && to !== undefined && to.rank < from.rank;
    });
    expect(upward.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`)).toEqual([]);
  });

  it("no run-time import circle", () => {
    expect(circles(runtime.filter((e) => !e.typeOnly))).toEqual([]);
  });

  it("the injected deps and the config's shape are in no import circle, types included", () => {
    // Each names the services it holds; a service's file that took the deps would close a circle of
    // types through them, so the deps name a narrow interface instead (domain/domain-deps.ts).
    const declarations = [
      "runtime/deps.ts",
      "runtime/edges/edge-deps.ts",
      "runtime/domain/domain-deps.ts",
      "runtime/domain/runtime-config.ts",
    ];
    expect(circles(runtime).filter((circle) => circle.some((file) => declarations.includes(file)))).toEqual([]);
  });

  it("build/ imports only the shared layer of the runtime", () => {
    const offenders = edgesOf(["build"]).filter(
      (e) => e.to.startsWith("runtime/") && layerOf(e.to, declaration)?.layer.name !== declaration.buildImports,
    );
    expect(offenders.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });
});
