/**
 * Imports point one way: build/ → runtime/shared/schema/ ← runtime/*. The runtime never imports build/
 * and never pulls in the build's heavy libraries (they must not reach the server bundle).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../build/_fixtures.ts";

const BANNED_IN_RUNTIME = ["unified", "remark-parse", "gray-matter", "ajv", "ajv-formats", "gpt-tokenizer"];
const IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

function runtimeFiles(dir = join(REPO_ROOT, "runtime")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? runtimeFiles(join(dir, e.name)) : /\.(ts|mts|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

describe("contract: boundaries", () => {
  const files = runtimeFiles();

  it("finds runtime files to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it("no runtime file imports from build/", () => {
    const offenders = files.flatMap((f) =>
      importsOf(f)
        .filter((spec) => spec.startsWith(".") && relative(REPO_ROOT, join(f, "..", spec)).split(/[\\/]/)[0] === "build")
        .map((spec) => `${relative(REPO_ROOT, f)} → ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("no runtime file imports the build's libraries", () => {
    const offenders = files.flatMap((f) =>
      importsOf(f)
        .filter((spec) => BANNED_IN_RUNTIME.some((lib) => spec === lib || spec.startsWith(`${lib}/`)))
        .map((spec) => `${relative(REPO_ROOT, f)} → ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the schemas know the payment methods only through method-ids.ts, which imports only the methods' environment blocks", () => {
    const schemas = files.filter((f) => relative(REPO_ROOT, f).startsWith(join("runtime/shared/schema", "/")));
    expect(schemas.length).toBeGreaterThan(0);
    const offenders = schemas.flatMap((f) =>
      importsOf(f)
        .filter((spec) => spec.includes("/payments/") && !spec.endsWith("/payments/methods/method-ids.ts"))
        .map((spec) => `${relative(REPO_ROOT, f)} → ${spec}`),
    );
    expect(offenders).toEqual([]);
    const methods = join(REPO_ROOT, "runtime/domain/payments/methods");
    const ids = importsOf(join(methods, "method-ids.ts"));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter((spec) => !/^\.\/[a-z0-9-]+\/[a-z0-9-]+-env\.ts$/.test(spec) && spec !== "./method-env.ts")).toEqual([]);
  });

  it("a method's environment block and its contract import only types, so config reads them without loading any method", () => {
    const methods = join(REPO_ROOT, "runtime/domain/payments/methods");
    const blocks = files.filter((f) => f.startsWith(methods) && /-env\.ts$/.test(f));
    expect(blocks.length).toBeGreaterThan(1);
    const offenders = blocks.flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/(?:^|\n)\s*(import|export)\b(?!\s+type\b)[^'"]*?from\s*["']([^"']+)["']/g)].map(
        (m) => `${relative(REPO_ROOT, f)} → ${m[2]}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("no runtime file or production entry reaches the dev key; only scripts/dev.ts does", () => {
    // The server (its bundle is built from runtime/), `npm start` and the vkr CLI never create or print it.
    const production = [...files, join(REPO_ROOT, "scripts", "start.ts"), ...runtimeFiles(join(REPO_ROOT, "cli"))];
    const offenders = production.filter((f) => importsOf(f).some((spec) => spec.endsWith("dev-key.ts")));
    expect(offenders).toEqual([]);
    const importers = readdirSync(join(REPO_ROOT, "scripts")).filter(
      (f) => f.endsWith(".ts") && importsOf(join(REPO_ROOT, "scripts", f)).some((spec) => spec.endsWith("dev-key.ts")),
    );
    expect(importers).toEqual(["dev.ts"]);
  });
});
