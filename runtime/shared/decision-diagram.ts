/**
 * Reduced ordered binary decision diagrams of a node's outcomes, one per rule set and cached.
 *
 * Why: three-valued gate evaluation tells whether an outcome is open, but not which missing facts
 * can still change it. In a reduced diagram a fact appears exactly when the outcome depends on it,
 * so "restrict to the given facts, then read the variables left" is the exact set of questions
 * worth asking, and a diagram that restricts to a constant is an outcome already decided.
 */
import { type BoundedCache, boundedCache } from "./cache.ts";
import type { CompiledGate, CompiledRuleSet } from "./schema/rules.ts";

/** A diagram node: 0 is false, 1 is true, any other number indexes the manager's table. */
export type Ref = number;
export const FALSE: Ref = 0;
export const TRUE: Ref = 1;

/** A variable open outcomes depend on: which outcomes, and how many one answer settles at best. */
export interface RankedFact {
  v: number;
  outcomes: readonly string[];
  settles: number;
}

/** Restricted states whose rankings are kept, per rule set. */
const RANKINGS_MAX = 512;

export class DecisionDiagrams {
  /** Fact ids in declaration order: the variable order of every diagram. */
  readonly variables: readonly string[];
  /** Outcome id → its diagram over the facts (chained outcomes are expanded). */
  readonly outcomes: ReadonlyMap<string, Ref>;
  /**
   * Outcomes that only feed other rules. A fact is never asked for their sake: their diagrams are
   * expanded into the outcomes that read them, so a fact that can still change a reader is asked
   * for the reader, and one whose every path runs through a branch the given facts closed is not.
   */
  readonly intermediate: ReadonlySet<string>;
  private readonly table: Array<{ v: number; lo: Ref; hi: Ref }> = [
    { v: Infinity, lo: 0, hi: 0 },
    { v: Infinity, lo: 1, hi: 1 },
  ];
  private readonly unique = new Map<string, Ref>();
  private readonly applyMemo = new Map<string, Ref>();
  /** Made on the first ranking: most rule sets are never asked for one. */
  private rankings: BoundedCache<string, readonly RankedFact[]> | undefined;

  constructor(ruleSet: CompiledRuleSet) {
    this.variables = ruleSet.facts.map((f) => f.id);
    this.intermediate = new Set(ruleSet.intermediate ?? []);
    const index = new Map(this.variables.map((id, i) => [id, i]));
    const outcomes = new Map<string, Ref>();
    // Rules come in dependency order, so an outcome a gate reads is complete when it is read.
    for (const rule of ruleSet.rules) {
      const gate = this.fromGate(rule.when, index, outcomes);
      outcomes.set(rule.then, this.or(outcomes.get(rule.then) ?? FALSE, gate));
    }
    for (const o of ruleSet.outcomes) if (!outcomes.has(o.id)) outcomes.set(o.id, FALSE);
    this.outcomes = outcomes;
  }

  /** The diagram with the given facts fixed; `memo` may be shared by calls with the same `given`. */
  restrict(ref: Ref, given: ReadonlyMap<number, boolean>, memo = new Map<Ref, Ref>()): Ref {
    let last = -1;
    for (const v of given.keys()) if (v > last) last = v;
    return this._restrict(ref, given, last, memo);
  }

  /**
   * The variables some open outcome that is not intermediate (`restricted`: outcome id → its
   * diagram under the given facts) still depends on, most decisive first: ranked by how many such
   * outcomes one answer (the better of yes and no) settles, then by how many it can change, then in
   * declaration order.
   *
   * Remembered per restricted state: the ranking depends on nothing else, agents that ask step by
   * step pass through the same few states, and ranking was the largest part of an evaluation (two
   * restrictions per open outcome and per variable it depends on).
   */
  rankOpenFacts(restricted: ReadonlyMap<string, Ref>): readonly RankedFact[] {
    const state = [...restricted.values()].join(",");
    const hit = this.rankings?.get(state);
    if (hit) return hit;
    const decides = new Map<number, string[]>();
    for (const [outcome, ref] of restricted) {
      if (ref === TRUE || ref === FALSE || this.intermediate.has(outcome)) continue;
      for (const v of this.support(ref)) decides.set(v, [...(decides.get(v) ?? []), outcome]);
    }
    const ranked = [...decides].map(([v, outcomes]) => {
      const settles = Math.max(
        ...[true, false].map((value) => {
          const memo = new Map<Ref, Ref>();
          const fixed = new Map([[v, value]]);
          return outcomes.filter((o) => {
            const r = this.restrict(restricted.get(o)!, fixed, memo);
            return r === TRUE || r === FALSE;
          }).length;
        }),
      );
      return { v, outcomes, settles };
    });
    ranked.sort((a, b) => b.settles - a.settles || b.outcomes.length - a.outcomes.length || a.v - b.v);
    (this.rankings ??= boundedCache(RANKINGS_MAX)).set(state, ranked);
    return ranked;
  }

  /** The conjunction of two diagrams: FALSE exactly when no assignment makes both true. */
  conjoin(a: Ref, b: Ref): Ref {
    return this.and(a, b);
  }

  /**
   * One assignment that makes the diagram true, fixing as few variables as a path allows (the
   * variables left out may take any value); `undefined` for FALSE.
   * @example diagrams.witness(diagrams.conjoin(x, y)) // Map { 2 => true, 5 => false }
   */
  witness(ref: Ref): Map<number, boolean> | undefined {
    if (ref === FALSE) return undefined;
    const depth = new Map<Ref, number>([[TRUE, 0]]);
    const shortest = (r: Ref): number => {
      if (r === FALSE) return Infinity;
      const hit = depth.get(r);
      if (hit !== undefined) return hit;
      const { lo, hi } = this.table[r]!;
      const d = 1 + Math.min(shortest(lo), shortest(hi));
      depth.set(r, d);
      return d;
    };
    const out = new Map<number, boolean>();
    for (let r = ref; r !== TRUE; ) {
      const { v, lo, hi } = this.table[r]!;
      const high = shortest(hi) <= shortest(lo);
      out.set(v, high);
      r = high ? hi : lo;
    }
    return out;
  }

  /** Variable indexes the diagram depends on. */
  support(ref: Ref, into = new Set<number>(), seen = new Set<Ref>()): Set<number> {
    if (ref <= TRUE || seen.has(ref)) return into;
    seen.add(ref);
    const { v, lo, hi } = this.table[ref]!;
    into.add(v);
    this.support(lo, into, seen);
    this.support(hi, into, seen);
    return into;
  }

  // --- Internal helpers ---

  /**
   * Variables only grow along a path, so below the last given variable nothing can be fixed and
   * the node is its own restriction. Without this every evaluation rebuilt each outcome's whole
   * diagram, node by node through `mk`, even with no facts given (about a third of the CPU of a
   * POST /api/evaluate under load).
   */
  private _restrict(ref: Ref, given: ReadonlyMap<number, boolean>, last: number, memo: Map<Ref, Ref>): Ref {
    if (ref <= TRUE) return ref;
    const { v, lo, hi } = this.table[ref]!;
    if (v > last) return ref;
    const hit = memo.get(ref);
    if (hit !== undefined) return hit;
    const fixed = given.get(v);
    const result =
      fixed === undefined
        ? this.mk(v, this._restrict(lo, given, last, memo), this._restrict(hi, given, last, memo))
        : this._restrict(fixed ? hi : lo, given, last, memo);
    memo.set(ref, result);
    return result;
  }

  private mk(v: number, lo: Ref, hi: Ref): Ref {
    if (lo === hi) return lo;
    const key = `${v},${lo},${hi}`;
    const hit = this.unique.get(key);
    if (hit !== undefined) return hit;
    this.table.push({ v, lo, hi });
    const ref = this.table.length - 1;
    this.unique.set(key, ref);
    return ref;
  }

  private not(a: Ref): Ref {
    return this.apply("x", a, TRUE);
  }

  private and(a: Ref, b: Ref): Ref {
    return this.apply("&", a, b);
  }

  private or(a: Ref, b: Ref): Ref {
    return this.apply("|", a, b);
  }

  private apply(op: "&" | "|" | "x", a: Ref, b: Ref): Ref {
    if (a <= TRUE && b <= TRUE) return op === "&" ? a & b : op === "|" ? a | b : a ^ b;
    const key = `${op}${a},${b}`;
    const hit = this.applyMemo.get(key);
    if (hit !== undefined) return hit;
    const na = this.table[a]!;
    const nb = this.table[b]!;
    const v = Math.min(na.v, nb.v);
    const [alo, ahi] = na.v === v ? [na.lo, na.hi] : [a, a];
    const [blo, bhi] = nb.v === v ? [nb.lo, nb.hi] : [b, b];
    const result = this.mk(v, this.apply(op, alo, blo), this.apply(op, ahi, bhi));
    this.applyMemo.set(key, result);
    return result;
  }

  private fromGate(gate: CompiledGate, index: ReadonlyMap<string, number>, outcomes: ReadonlyMap<string, Ref>): Ref {
    switch (gate.op) {
      case "fact": {
        const v = index.get(gate.name);
        return v === undefined ? FALSE : this.mk(v, FALSE, TRUE);
      }
      case "outcome":
        return outcomes.get(gate.name) ?? FALSE;
      case "not":
        return this.not(this.fromGate(gate.arg, index, outcomes));
      case "all":
        return gate.args.reduce<Ref>((acc, g) => this.and(acc, this.fromGate(g, index, outcomes)), TRUE);
      case "any":
        return gate.args.reduce<Ref>((acc, g) => this.or(acc, this.fromGate(g, index, outcomes)), FALSE);
    }
  }
}

const cache = new WeakMap<object, DecisionDiagrams>();

/** The diagrams of a rule set, built once per compiled rules array. */
export function diagramsFor(ruleSet: CompiledRuleSet): DecisionDiagrams {
  const hit = cache.get(ruleSet.rules);
  if (hit && _sameDeclarations(hit, ruleSet)) return hit;
  const built = new DecisionDiagrams(ruleSet);
  cache.set(ruleSet.rules, built);
  return built;
}

/** The cached diagrams were built for these facts, in this order, and these intermediate outcomes. */
function _sameDeclarations(diagrams: DecisionDiagrams, ruleSet: CompiledRuleSet): boolean {
  const intermediate = ruleSet.intermediate ?? [];
  return (
    diagrams.variables.length === ruleSet.facts.length &&
    diagrams.variables.every((v, i) => v === ruleSet.facts[i]!.id) &&
    diagrams.intermediate.size === intermediate.length &&
    intermediate.every((o) => diagrams.intermediate.has(o))
  );
}
