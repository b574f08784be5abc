/** The content scenarios (test/content/scenarios/*.yaml), read once for every suite that runs them. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "../build/_fixtures.ts";

/**
 * Item: { name, vertical, node, as_of?, facts: { fact: bool }, expect: { holds?, not_holds?, undetermined?, missing?, derived?, says?, never_says?, values? }, basis }
 * `says` / `never_says` are case-insensitive regular expressions over the node's text (summary, layers,
 * fact questions, outcome descriptions, citations): a defect in prose is tested like a defect in a rule.
 */
export interface Scenario {
  name: string;
  vertical: string;
  node: string;
  /** The assessed date (YYYY-MM-DD) the node's date facts are derived from, as POST /api/evaluate's as_of. */
  as_of?: string;
  facts: Record<string, boolean>;
  expect: {
    holds?: string[];
    not_holds?: string[];
    undetermined?: string[];
    missing?: string[];
    /** The date facts the answer derived (derived_facts), exactly. */
    derived?: Record<string, boolean>;
    says?: string[];
    never_says?: string[];
    /** Outcome id → the typed values the answer must carry for it (it must hold). */
    values?: Record<string, unknown[]>;
  };
  basis: string;
}

const SCENARIOS_DIR = join(REPO_ROOT, "test/content/scenarios");

/** Each scenario file with its items, sorted by file name. */
export function readScenarioFiles(): Array<{ file: string; items: Scenario[] }> {
  if (!existsSync(SCENARIOS_DIR)) return [];
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => ({ file, items: (parseYaml(readFileSync(join(SCENARIOS_DIR, file), "utf8")) ?? []) as Scenario[] }));
}
