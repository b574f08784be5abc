/**
 * Search snippets are cut at sentence boundaries without breaking citations, and keep
 * identifiers whole (build/search/passages.ts). The regex cutter it replaces ended 733 passages of
 * the real content after "Art.", "No.", "U.S.C." or "e.g." and merged `is_ai_system` into
 * "isaisystem"; test/content/content.test.ts checks the real content too.
 */
import { describe, expect, it } from "vitest";
import { cutPassage, MAX_PASSAGE, splitSentences, toPassages } from "../../build/search/passages.ts";

describe("snippet passages", () => {
  it("does not end a sentence at an abbreviation or inside a citation", () => {
    expect(splitSentences("Under Art. 5 no one may. The carrier pays (42 U.S.C. 3603(b)). See CJEU C-146/20. Then stop.")).toEqual([
      "Under Art. 5 no one may.",
      "The carrier pays (42 U.S.C. 3603(b)).",
      "See CJEU C-146/20.",
      "Then stop.",
    ]);
    expect(
      splitSentences("Regulation (EC) No. 261/2004 applies. Arts. 8 and 9 follow, e.g. The Hague rules, cf. Sturgeon v. Condor."),
    ).toEqual(["Regulation (EC) No. 261/2004 applies.", "Arts. 8 and 9 follow, e.g. The Hague rules, cf. Sturgeon v. Condor."]);
  });

  it("keeps inline code and identifiers whole, drops code blocks, reads lists and tables", () => {
    expect(
      toPassages(
        "Set `is_ai_system` first. **Art. 50(1)**: tell people.\n\n- one item. Two.\n\n| fact | value |\n|---|---|\n| in_scope | yes |\n\n```\nnot. Quoted\n```",
      ),
    ).toEqual(["Set is_ai_system first.", "Art. 50(1): tell people.", "one item.", "Two.", "fact; value", "in_scope; yes"]);
  });

  it("cuts a sentence longer than a snippet at a clause boundary outside any citation", () => {
    const long =
      "The Fair Housing Act exempts, under 42 U.S.C. 3603(b), a single-family house sold or rented by an owner who owns no more than three such houses, provided that no broker is used and no discriminatory advertisement is published in connection with the sale, as the CJEU said in C-146/20 about something else entirely, and much more follows.";
    const cut = cutPassage(long);
    expect(cut.length).toBeLessThanOrEqual(MAX_PASSAGE + 2);
    expect(cut.endsWith(" …")).toBe(true);
    expect(long.startsWith(cut.slice(0, -2))).toBe(true);
    for (const citation of ["42 U.S.C. 3603(b)", "C-146/20"]) if (cut.includes(citation.split(" ")[0]!)) expect(cut).toContain(citation);
    // No cut lands between "42 U.S.C." and "3603(b)", even when that is where the room ends.
    const tight = cutPassage("A".repeat(40) + " under 42 U.S.C. 3603(b) exempt", 58);
    expect(tight).not.toMatch(/U\.S\.C\. …$/);
  });
});
