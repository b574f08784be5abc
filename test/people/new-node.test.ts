/**
 * `npm run new -- <vertical> <node-id>` scaffolds a node that builds, reachable from the root.
 * One `npm run` proves the script's wiring (package.json, tsx, the exit code and output of
 * scripts/new-node.ts); the other cases call the command it runs (scripts/new-node-command.ts,
 * the whole of the script but its one line) in this process, without a Node start and tsx per
 * case, and both scaffolds share one content folder and one build.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newNodeCommand } from "../../scripts/new-node-command.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(cmd, args, { timeout: 90_000 }, (error, stdout, stderr) =>
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** What scripts/new-node.ts runs, in this process: its exit code and what it printed. */
function newNode(...args: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const code = newNodeCommand(args, { log: (line) => (stdout += `${line}\n`), error: (line) => (stderr += `${line}\n`) });
  return { code, stdout, stderr };
}

describe("npm run new", () => {
  it("writes nodes with the four layers and a rule skeleton, linked from the root or --from, that the build accepts; refuses an existing node or a bad id", async () => {
    const content = writeFixtureContent();
    const made = await run("npm", ["run", "-s", "new", "--", "travel", "trv-scaffolded", "--content", content]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("created ");
    const file = join(content, "travel", "trv-scaffolded.md");
    const text = readFileSync(file, "utf8");
    expect(text.match(/^## (Logic|Directive|Skill|Action)$/gm)).toEqual(["## Logic", "## Directive", "## Skill", "## Action"]);
    expect(text).toMatch(/^rules:\n {2}- id: example-rule\n {4}when:/m);
    expect(text).toMatch(/^order: 8$/m);
    // Review dates: a new node starts reviewed today and due for review in six months.
    expect(text).toMatch(/^reviewed: \d{4}-\d{2}-\d{2}\nreview_by: \d{4}-\d{2}-\d{2}$/m);
    // Linked from the root, so it is reachable.
    expect(readFileSync(join(content, "travel", "trv-m1.md"), "utf8")).toMatch(/^next_nodes: \[trv-m2, trv-scaffolded\]$/m);

    // Linked from --from, in another vertical of the same content.
    expect(newNode("real-estate", "re-three", "--from", "re-two", "--content", content).code).toBe(0);
    expect(readFileSync(join(content, "real-estate", "re-two.md"), "utf8")).toMatch(/^next_nodes: \[re-three\]$/m);

    // One build for both: it throws on any fatal issue, so both scaffolds build.
    const dist = buildContentTo(content);
    const node = JSON.parse(readFileSync(join(dist, "data/verticals/travel/nodes/trv-scaffolded.json"), "utf8"));
    expect(node.node.layers.logic.rules).toHaveLength(1);
    expect(Object.keys(node.node.layers).sort()).toEqual(["action", "directive", "logic", "skill"]);
    expect(existsSync(join(dist, "browse/travel/nodes/trv-scaffolded.html"))).toBe(true);
    expect(existsSync(join(dist, "data/verticals/real-estate/nodes/re-three.json"))).toBe(true);

    const again = newNode("real-estate", "re-three", "--content", content);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(newNode("real-estate", "Bad_Id", "--content", content).code).toBe(2);
    expect(newNode("no-such-vertical", "x-one", "--content", content).code).toBe(1);
    // One npm run and a build: on a loaded CI machine this passed the default 30 s.
  }, 180_000);
});
