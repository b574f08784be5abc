/**
 * `vkr status`: is this deployment ready? Locally: the build in dist/ loads, and the state store
 * answers (with key counts). With `--url`: asks a running service's /readyz (one GET).
 * Exit 0 when ready, 5 when not.
 */

import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { printResult, runOperation } from "../output.ts";
import { STORE_ARGS } from "../store-args.ts";

export default defineCommand({
  meta: { name: "status" },
  args: { url: { type: "string", description: "Base URL of a running service, e.g. http://127.0.0.1:8787" }, ...STORE_ARGS },
  run: ({ args }) =>
    runOperation(args.json, async () => {
      if (args.url !== undefined) return _remote(_parseBaseUrl(args.url), args.json);
      // Loaded here, not above: asking a running service (--url) needs neither the build nor the stores.
      const { describeStateStore, openOperatorContext, resolveOperatorConfig } = await import("../operator-context.ts");
      const config = resolveOperatorConfig(args);
      const ctx = await openOperatorContext(config).catch((error: unknown) => {
        throw new OperatorError(
          "not_ready",
          `cannot open the build or store: ${error instanceof Error ? error.message : String(error)}`,
          EXIT.notReady,
        );
      });
      try {
        const storeOk = await ctx.backend.ping().catch(() => false);
        const keys = await ctx.keys.list({});
        const today = new Date(ctx.now()).toISOString().slice(0, 10);
        const reviewBy = Object.entries(ctx.build.manifest.verticals).flatMap(([slug, v]) =>
          Object.entries(v.nodes).map(([id, n]) => ({ node: `${slug}/${id}`, review_by: n.review_by })),
        );
        const report = {
          ready: storeOk,
          build_id: ctx.build.buildId,
          api_version: ctx.build.catalog.api_version,
          verticals: Object.fromEntries(
            Object.entries(ctx.build.manifest.verticals).map(([slug, v]) => [slug, Object.keys(v.nodes).length]),
          ),
          store: { kind: ctx.backend.kind, ok: storeOk, location: describeStateStore(config) },
          // Content ages: nodes past their review date, and the next review due.
          reviews: {
            overdue: reviewBy.filter((r) => r.review_by !== undefined && r.review_by < today).map((r) => r.node),
            unscheduled: reviewBy.filter((r) => r.review_by === undefined).length,
            next_review_by:
              reviewBy
                .map((r) => r.review_by)
                .filter((d): d is string => d !== undefined && d >= today)
                .sort()[0] ?? null,
          },
          keys: {
            total: keys.length,
            active: keys.filter((k) => k.status === "active").length,
            revoked: keys.filter((k) => k.status === "revoked").length,
          },
        };
        printResult(args.json, report, () =>
          [
            `build ${report.build_id} (API ${report.api_version}), ${Object.entries(report.verticals)
              .map(([s, n]) => `${s} ${n}`)
              .join(", ")}`,
            `store ${report.store.location}: ${storeOk ? "ok" : "NOT ANSWERING"}`,
            `reviews: ${report.reviews.overdue.length} overdue${report.reviews.overdue.length ? ` (${report.reviews.overdue.slice(0, 5).join(", ")})` : ""}, next review by ${report.reviews.next_review_by ?? "none"}`,
            `keys: ${report.keys.active} active, ${report.keys.revoked} revoked`,
          ].join("\n"),
        );
        return storeOk ? EXIT.ok : EXIT.notReady;
      } finally {
        await ctx.close();
      }
    }),
});

// --- Internal helpers ---

/** `--url` must be an http(s) base URL; anything else is a usage error, not "not ready". */
function _parseBaseUrl(raw: string): string {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new OperatorError(
      "usage",
      `--url "${raw.slice(0, 80)}" is not an http(s) URL; pass the service's base URL, e.g. --url http://127.0.0.1:8787`,
      EXIT.failure,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

async function _remote(base: string, json: boolean): Promise<number> {
  const ready = await _getJson(new URL(`${base}/readyz`)).catch((error: unknown) => ({
    status: 0,
    body: { error: String(error) } as Record<string, unknown> | null,
  }));
  const ok = ready.status === 200;
  printResult(json, { ready: ok, url: base, readyz: ready.body }, () =>
    ok
      ? `${base} is ready: build ${String(ready.body?.build_id)}, store ${String(ready.body?.store)}`
      : `${base} is NOT ready (${ready.status || "unreachable"})`,
  );
  return ok ? EXIT.ok : EXIT.notReady;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL with node:http(s), as `fetch` answered it here before: redirects followed (up to 20),
 * the body as JSON or null, and a network failure as fetch's own `TypeError: fetch failed`, so
 * `--json` prints what it printed. Not `fetch`: loading undici and compiling its wasm HTTP parser
 * cost about 0.1 s of CPU, and the process then waited for V8 to finish optimising that wasm in the
 * background before it could exit (0.1–0.3 s of wall time on this project's machine kind).
 */
async function _getJson(url: URL, redirects = 20): Promise<{ status: number; body: Record<string, unknown> | null }> {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("fetch failed");
  const { get } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const response = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
    get(url, { headers: { accept: "*/*" } }, resolve).on("error", () => reject(new TypeError("fetch failed")));
  });
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (REDIRECTS.has(status) && location !== undefined) {
    response.resume();
    if (redirects === 0) throw new TypeError("fetch failed");
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new TypeError("fetch failed");
    }
    return _getJson(next, redirects - 1);
  }
  const text = await new Promise<string | null>((resolve) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    // TextDecoder drops a byte-order mark, as fetch's `json()` did.
    response.on("end", () => resolve(new TextDecoder().decode(Buffer.concat(chunks))));
    // A body cut off midway is no JSON, as fetch's `json()` rejected it (the first resolve wins).
    response.on("error", () => resolve(null));
    response.on("close", () => resolve(null));
  });
  try {
    return { status, body: text === null ? null : (JSON.parse(text) as Record<string, unknown>) };
  } catch {
    return { status, body: null };
  }
}
