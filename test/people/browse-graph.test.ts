/**
 * The graph layout keeps every edge out of every box, for any shape of graph
 * (random graphs with back-edges, self-loops, wide ranks that wrap, unreachable nodes), draws one
 * shape per node and one path per edge, and lays out identically on every run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderGraphSvg } from "../../build/browse/layout-graph.ts";

type Point = { x: number; y: number };

const graphArb = fc
  .integer({ min: 1, max: 28 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }),
      fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    ),
  );

function toIndex([n, next, trial]: [number, number[][], boolean[]]) {
  return {
    root: "n0",
    title: "Random",
    nodes: Array.from({ length: n }, (_, i) => ({
      id: `n${i}`,
      title: `Node ${i} with a title long enough to wrap onto a second or even a third line`,
      order: i,
      next_nodes: [...new Set(next[i]!.map((j) => `n${j}`))],
      trial: trial[i]!,
      status: "active" as const,
    })),
  } as unknown as Parameters<typeof renderGraphSvg>[0];
}

/** Points along a path of M, L, V, H, C commands, every 2 units. */
function samplePath(d: string): Point[] {
  const points: Point[] = [];
  let at: Point = { x: 0, y: 0 };
  const line = (to: Point) => {
    const steps = Math.max(1, Math.ceil(Math.hypot(to.x - at.x, to.y - at.y) / 2));
    for (let s = 0; s <= steps; s++) points.push({ x: at.x + ((to.x - at.x) * s) / steps, y: at.y + ((to.y - at.y) * s) / steps });
    at = to;
  };
  for (const [, cmd, args] of d.matchAll(/([MLVHC])([^MLVHC]*)/g)) {
    const nums = args!
      .trim()
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    if (cmd === "M") at = { x: nums[0]!, y: nums[1]! };
    else if (cmd === "L") line({ x: nums[0]!, y: nums[1]! });
    else if (cmd === "V") line({ x: at.x, y: nums[0]! });
    else if (cmd === "H") line({ x: nums[0]!, y: at.y });
    else {
      const [c1, c2, end] = [
        { x: nums[0]!, y: nums[1]! },
        { x: nums[2]!, y: nums[3]! },
        { x: nums[4]!, y: nums[5]! },
      ];
      for (let s = 0; s <= 60; s++) {
        const t = s / 60;
        const u = 1 - t;
        points.push({
          x: u ** 3 * at.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t ** 3 * end.x,
          y: u ** 3 * at.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t ** 3 * end.y,
        });
      }
      at = end;
    }
  }
  return points;
}

describe("renderGraphSvg layout", () => {
  it("never draws an edge through a box, with one shape per node and one path per edge", () => {
    fc.assert(
      fc.property(graphArb, (input) => {
        const index = toIndex(input);
        const svg = renderGraphSvg(index, (id) => `/browse/x/${id}`);
        const rects = [
          ...svg.matchAll(/<rect class="node[^"]*" data-node="([^"]+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g),
        ].map((m) => ({
          id: m[1]!,
          x: Number(m[2]),
          y: Number(m[3]),
          w: Number(m[4]),
          h: Number(m[5]),
        }));
        expect(rects.map((r) => r.id).sort()).toEqual(index.nodes.map((n) => n.id).sort());
        const edges = [...svg.matchAll(/<path class="edge[^"]*" data-from="([^"]+)" data-to="([^"]+)" d="([^"]+)"/g)];
        // Every edge is drawn forward (into a lower row) or counted on its box as a link back.
        const back = [...svg.matchAll(/data-node="([^"]+)" data-back="([^"]+)"/g)].flatMap((m) =>
          m[2]!.split(" ").map((to) => [m[1]!, to]),
        );
        expect(edges.length + back.length).toBe(
          index.nodes.reduce((n, node) => n + node.next_nodes.filter((t) => t !== node.id).length, 0),
        );
        const top = new Map(rects.map((r) => [r.id, r.y]));
        for (const [, from, to] of edges) expect(top.get(to!)!, `${from} -> ${to} drawn`).toBeGreaterThan(top.get(from!)!);
        for (const [from, to] of back) expect(top.get(to!)!, `${from} -> ${to} counted`).toBeLessThanOrEqual(top.get(from!)!);
        expect(svg).not.toContain("stroke-dasharray");
        for (const [, from, to, d] of edges) {
          const inside = samplePath(d!).find((p) =>
            rects.some((r) => p.x > r.x + 0.5 && p.x < r.x + r.w - 0.5 && p.y > r.y + 0.5 && p.y < r.y + r.h - 0.5),
          );
          expect(inside, `${from} -> ${to}`).toBeUndefined();
        }
        // No two boxes overlap.
        for (const a of rects)
          for (const b of rects)
            if (a !== b) expect(a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y).toBe(true);
        expect(renderGraphSvg(index, (id) => `/browse/x/${id}`)).toBe(svg);
      }),
      { numRuns: 150 },
    );
  });

  it("keeps its natural size: width and height attributes equal the viewBox, so labels are never shrunk", () => {
    const svg = renderGraphSvg(
      toIndex([12, Array.from({ length: 12 }, (_, i) => (i === 0 ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] : [0])), Array(12).fill(false)]),
      (id) => id,
    );
    const [, vw, vh] = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg)!;
    expect(svg).toContain(`width="${vw}" height="${vh}"`);
    // Eleven children of the root wrap onto rows of at most five.
    const ys = new Set([...svg.matchAll(/<rect class="node[^"]*" data-node="n(?:[1-9]|1[01])" x="[\d.]+" y="([\d.]+)"/g)].map((m) => m[1]));
    expect(ys.size).toBe(3);
  });
});
