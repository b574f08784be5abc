/**
 * The fact base's list of known-wrong figures (shared reference: content-facts §5 "Common errors")
 * may appear in content only where a node warns against it: on a line that also gives the right
 * figure or marks the wrong one as outdated. Anywhere else it would be stated as fact.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const KNOWN_WRONG: Array<{ wrong: RegExp; right: string; why: string }> = [
  { wrong: /1,?288 SDR/, right: "1,519", why: "Montreal baggage limit is 1,519 SDR since 28 Dec 2024" },
  { wrong: /(USD|\$) ?775\b|1,550\b/, right: "1,075", why: "US denied-boarding maximums are USD 1,075/2,150 since 22 Jan 2025" },
  { wrong: /\.well-known\/agent\.json/, right: "agent-card.json", why: "A2A v0.3+/v1.0 Agent Card path" },
  { wrong: /ETIAS[^\n]{0,60}(EUR|€) ?7\b|(EUR|€) ?7 fee/, right: "20", why: "ETIAS fee is EUR 20" },
  { wrong: /in force (on )?2 Aug(ust)? 2024/, right: "1 Aug", why: "AI Act entered into force 1 Aug 2024" },
  { wrong: /GPAI[^\n]{0,80}(EUR|€) ?35 ?m/, right: "15", why: "GPAI fines: EUR 15m or 3 % (Art. 101)" },
  { wrong: /eight prohibited practices/i, right: "ten", why: "ten prohibited practices since Reg. 2026/1744" },
];
const OUTDATED_MARKERS = /never|legacy|replaced|raised from|originally|outdated|old|not current|instead of|wrong|v0\.[23]/i;

function* markdownFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* markdownFiles(path);
    else if (entry.name.endsWith(".md") && entry.name !== "AUTHORING.md") yield path;
  }
}

describe("known-wrong figures from the fact base", () => {
  const files = [...markdownFiles("content")];
  it("reads the content", () => expect(files.length).toBeGreaterThan(70));
  it.each(KNOWN_WRONG.map((k) => [k.why, k] as const))("%s: only ever shown as outdated", (_why, { wrong, right }) => {
    const offending: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (wrong.test(line) && !line.includes(right) && !OUTDATED_MARKERS.test(line))
            offending.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
        });
    }
    expect(offending).toEqual([]);
  });
});
