/**
 * Signed answers checked where the docs say they can be: in a web page on another origin, in real
 * headless Chromium (Debian's chromium driven by playwright-core), with the typed client's
 * `verifyAnswer`. CORS must expose the signature headers, or the page sees "not a signed answer".
 */
import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const FACTS = { is_ai_system: true, in_scope: true, excluded: false };

let svc: TestService;
let pageServer: Server;
let context: BrowserContext;
let tab: Page;
let key: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/ensure-services.sh (npm test does) to install Debian's chromium`);
  svc = await startTestService(resolve("dist"));
  key = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "browser-verifier" } })).body.key as string;
  const bundle = await build({
    entryPoints: ["test/signing/browser/verify-in-page.ts"],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.text;
  pageServer = createServer((req, res) => {
    if (req.url === "/verify.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><title>verifier</title><script src="/verify.js"></script>');
  });
  await new Promise<void>((done) => pageServer.listen(0, "127.0.0.1", done));
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "vkr-chromium-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
  tab = context.pages()[0] ?? (await context.newPage());
  // localhost vs 127.0.0.1: another origin than the service's, so every request is cross-origin.
  await tab.goto(`http://localhost:${(pageServer.address() as AddressInfo).port}/`);
}, 120_000);
afterAll(async () => {
  await context?.close();
  await new Promise((done) => pageServer?.close(done));
  await svc?.close();
});

const inPage = (path: string, init: RequestInit, expectation: Record<string, unknown>) =>
  tab.evaluate(
    ([base, p, i, e]) =>
      (window as unknown as { fetchAndVerify(b: string, p: string, i: RequestInit, e: unknown): Promise<any> }).fetchAndVerify(
        base,
        p,
        i,
        e,
      ),
    [svc.url, path, init, expectation] as const,
  );

describe("CORS", () => {
  it("exposes every response header the OpenAPI description documents (Set-Cookie no browser exposes)", async () => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>>; components: any };
    const documented = new Set<string>();
    for (const methods of Object.values(doc.paths))
      for (const op of Object.values(methods))
        for (const answer of Object.values<any>(op.responses ?? {})) {
          const response = answer.$ref ? doc.components.responses[answer.$ref.split("/").pop()] : answer;
          for (const name of Object.keys(response.headers ?? {})) documented.add(name.toLowerCase());
        }
    documented.delete("set-cookie");
    expect(documented.size).toBeGreaterThan(10);
    const res = await fetch(`${svc.url}/api/demo?vertical=ai-compliance`);
    const exposed = new Set(
      res.headers
        .get("access-control-expose-headers")!
        .toLowerCase()
        .split(/\s*,\s*/),
    );
    expect([...documented].filter((name) => !exposed.has(name))).toEqual([]);
  });
});

describe("verifyAnswer in a page on another origin (Chromium)", () => {
  it("reads and verifies a signed node, and refuses it as another node's", async () => {
    const init = { headers: { "x-service-key": key } };
    const path = "/api/demo?vertical=ai-compliance&node=aic-triage";
    const node = await inPage(path, init, { node: "aic-triage" });
    expect(node.status).toBe(200);
    expect(node.readable.sort()).toEqual(["content-digest", "knowledge-identity", "signature", "signature-input"]);
    expect(node.result).toMatchObject({ ok: true, identity: { vertical: "ai-compliance", node: "aic-triage", view: "full" } });
    expect(await inPage(path, init, { node: "aic-scope" })).toMatchObject({
      result: { ok: false, reason: expect.stringMatching(/node "aic-triage", not "aic-scope"/) },
    });
  });

  it("reads and verifies a signed evaluation, and refuses it for other facts", async () => {
    const init = {
      method: "POST",
      headers: { "x-service-key": key, "content-type": "application/json" },
      body: JSON.stringify({ vertical: "ai-compliance", node: "aic-triage", facts: FACTS }),
    };
    const evaluation = await inPage("/api/evaluate", init, {
      node: "aic-triage",
      facts: { excluded: false, in_scope: true, is_ai_system: true },
    });
    expect(evaluation.status).toBe(200);
    expect(evaluation.result).toMatchObject({ ok: true, identity: { node: "aic-triage", view: "evaluation" } });
    expect(await inPage("/api/evaluate", init, { facts: { ...FACTS, excluded: true } })).toMatchObject({
      result: { ok: false, reason: expect.stringMatching(/other facts/) },
    });
  });
});
