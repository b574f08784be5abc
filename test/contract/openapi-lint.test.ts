/**
 * The published OpenAPI description passes Redocly's `recommended` ruleset with no errors:
 * every operation declares its security (`security: []` where anonymous callers are served),
 * so a route that loses its declaration fails here. Warnings are allowed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createOpenApiDocument } from "../../runtime/edges/openapi/document.ts";
import { ROUTES } from "../../runtime/edges/routes/index.ts";

const run = promisify(execFile);
const REDOCLY = join(process.cwd(), "node_modules", ".bin", "redocly");

interface LintResult {
  exitCode: number;
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; location: Array<{ pointer: string }> }>;
}

async function lint(doc: unknown): Promise<LintResult> {
  const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc));
  const args = ["lint", file, "--extends", "recommended", "--format", "json"];
  const out = await run(REDOCLY, args, {
    cwd: dir,
    timeout: 60_000,
    // No usage telemetry or update check from a test run.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  }).then(
    (r) => ({ exitCode: 0, stdout: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ exitCode: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "" }),
  );
  return { exitCode: out.exitCode, ...(JSON.parse(out.stdout) as Omit<LintResult, "exitCode">) };
}

const errorsOf = (r: LintResult) => r.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);

describe("OpenAPI description under Redocly recommended", () => {
  it("has no errors", async () => {
    const result = await lint(createOpenApiDocument({ apiVersion: "1.0.0", routes: ROUTES }));
    expect(errorsOf(result)).toEqual([]);
    expect(result.totals.errors).toBe(0);
    expect(result.exitCode).toBe(0);
  }, 90_000);

  it("fails when an operation loses its security declaration", async () => {
    const doc = createOpenApiDocument({ apiVersion: "1.0.0", routes: ROUTES });
    const status = (doc.paths["/api/status"] as { get: Record<string, unknown> }).get;
    delete status.security;
    const result = await lint(doc);
    expect(errorsOf(result)).toContain("security-defined #/paths/~1api~1status/get");
    expect(result.exitCode).not.toBe(0);
  }, 90_000);
});
