/**
 * The README is a landing page and the docs live beside it. Every relative link
 * in README.md and docs/ resolves (to a file, and to a heading when it names one); every code
 * block of the README is named and run (or checked) by a test; every variable the server reads
 * is in docs/configuration.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { renderDocPages } from "../../build/browse/render-docs.ts";
import { CONFIG_GROUPS, refusePartialGroups } from "../../runtime/config.ts";
import { codeBlocks, headingAnchors, markdownLinks } from "../helpers/markdown-docs.ts";

const PAGES = [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];
const ABSOLUTE_RE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
/** A page's heading anchors, parsed once per file: pages link into the same few pages dozens of times. */
const anchorsByPage = new Map<string, Set<string>>();
function anchorsOf(page: string): Set<string> {
  const known = anchorsByPage.get(page);
  if (known) return known;
  const anchors = headingAnchors(readFileSync(page, "utf8"));
  anchorsByPage.set(page, anchors);
  return anchors;
}

describe("README and docs/", () => {
  it("keeps the README a landing page of at most 250 lines", () => {
    expect(readFileSync("README.md", "utf8").split("\n").length).toBeLessThanOrEqual(250);
  });

  it.each(PAGES)("%s: every relative link resolves, to a file and to its heading", (page) => {
    const broken: string[] = [];
    for (const { url, line } of markdownLinks(readFileSync(page, "utf8"))) {
      if (ABSOLUTE_RE.test(url)) continue;
      const [path = "", fragment] = url.split("#");
      const target = path === "" ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${page}:${line} ${url}: no file ${relative(".", target)}`);
        continue;
      }
      if (fragment && target.endsWith(".md") && !anchorsOf(target).has(decodeURIComponent(fragment))) {
        broken.push(`${page}:${line} ${url}: no heading #${fragment} in ${target}`);
      }
      if (fragment && statSync(target).isDirectory()) broken.push(`${page}:${line} ${url}: a folder has no headings`);
    }
    expect(broken).toEqual([]);
  });

  it("renders README.md and docs/ as pages whose links between them all resolve, to a page and to a heading id", async () => {
    const pages = await renderDocPages({ apiVersion: "test", buildId: "test" });
    expect([...pages.keys()]).toEqual(
      expect.arrayContaining(["docs/readme.html", "docs/guides.html", "docs/configuration.html", "docs/performance-history.html"]),
    );
    const broken: string[] = [];
    for (const [file, html] of pages) {
      for (const [, href] of html.matchAll(/href="(\/docs\/[^"]*)"/g)) {
        const [path = "", fragment] = href!.split("#");
        const target = pages.get(`${path.slice(1)}.html`);
        if (!target) broken.push(`${file}: ${href}`);
        else if (fragment && !target.includes(` id="${fragment}"`)) broken.push(`${file}: ${href} (no such heading)`);
      }
      // Links to repository files that are not served become their text, never a dead link.
      expect(html, file).not.toMatch(/href="[^"/#][^":]*"/);
      // A link to the service itself keeps to the host and port the page was served from.
      expect(html, file).not.toMatch(/href="https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\])[:/"]/);
    }
    expect(broken).toEqual([]);
  });

  it("names every code block of the README, and a test uses each name", () => {
    const tests = _testSources();
    const blocks = codeBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      expect(block.name, `README.md:${block.line} has a code block without a <!-- block: name --> marker`).not.toBeNull();
      const user = tests.find(([, text]) => text.includes(`readmeBlock("${block.name}")`));
      expect(user, `no test runs or checks the README block "${block.name}" (readmeBlock("${block.name}"))`).toBeDefined();
    }
    expect(new Set(blocks.map((b) => b.name)).size, "block names are unique").toBe(blocks.length);
  });

  it("quotes the refusal of a half-configured feature as the server words it, and counts each group's variables right", () => {
    const text = readFileSync("docs/configuration.md", "utf8").replace(/\s*\n\s*/g, " ");
    const example = /\(e\.g\. `([^`]+)`\)/.exec(text)?.[1];
    expect(example).toMatch(/^x402 payments is configured only in part: X402_PAY_TO is set/);
    let refusal = "";
    try {
      refusePartialGroups({ X402_PAY_TO: "0x0000000000000000000000000000000000000001" });
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(example).toBe(refusal);
    // "x402 (the N `X402_*`)": as many as the block requires by name.
    const count = /x402 \(the (\w+) `X402_\*`\)/.exec(text)?.[1];
    const required = CONFIG_GROUPS.find((g) => g.feature === "x402 payments")!.required.filter((names) => names[0]!.startsWith("X402_"));
    expect(count).toBe(["one", "two", "three", "four", "five"][required.length - 1]);
  });

  it("lists every environment variable the server reads in docs/configuration.md", () => {
    // config.ts, and the payment methods' environment blocks it reads through (`<id>/<id>-env.ts`).
    const blocks = readdirSync("runtime/domain/payments/methods", { recursive: true, encoding: "utf8" }).filter((f) => /-env\.ts$/.test(f));
    expect(blocks.length).toBeGreaterThan(2);
    const config = ["runtime/config.ts", ...blocks.map((f) => join("runtime/domain/payments/methods", f))]
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    // `env.NAME` and every quoted NAME_LIKE_THIS handed to the readers (`_int(env, "PORT", …)`, `read.text("…")`).
    const read = new Set(
      [...config.matchAll(/env\.([A-Z][A-Z0-9_]+)/g), ...config.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)"/g)].map((m) => m[1]!),
    );
    expect(read.size).toBeGreaterThan(20);
    const documented = readFileSync("docs/configuration.md", "utf8");
    expect([...read].filter((name) => !documented.includes(`\`${name}\``))).toEqual([]);
  });
});

// --- Internal helpers ---

function _testSources(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".test.ts") && path !== join("test", "people", "docs-links.test.ts"))
        out.push([path, readFileSync(path, "utf8")]);
    }
  };
  walk("test");
  return out;
}
