/**
 * Signed answers over real HTTP and the official MCP SDK client, verified with an independent
 * implementation of RFC 9421 (the `http-message-signatures` package) and a sha-256 of the body
 * computed here, never with the service's own code: static artifacts (signed by the build),
 * layer selections, and dynamic answers (evaluate, search, delta). One changed byte of the body,
 * the node version or the build id fails; answers still verify once the server is gone, against a
 * saved JWK Set; `vkr verify-answer` and the typed client's helper name node, version and build.
 */
import { execFile } from "node:child_process";
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import canonicalizeModule from "canonicalize";
import { createVerifier, httpbis } from "http-message-signatures";
import { calculateJwkThumbprint } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signingKeyFromEnv } from "../../build/signing-key.ts";
import { verifyAnswer } from "../../client/index.ts";
import { buildDataInProcess } from "../helpers/build-in-process.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

const canonicalize = canonicalizeModule as unknown as (value: unknown) => string;
const BIN = join(process.cwd(), "bin", "vkr.mjs");

interface Saved {
  headers: Record<string, string>;
  body: Uint8Array;
}
interface KeySet {
  keys: Array<{ kty: string; crv: string; x: string; kid: string }>;
}

const keyA = generateKeyPairSync("ed25519");
const keyB = generateKeyPairSync("ed25519");
const pem = (k: typeof keyA) => k.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
const publicJwk = (k: typeof keyA) => k.publicKey.export({ format: "jwk" });

let content: string;
let dist: string;
let svc: TestService;
let member: string;
let jwks: KeySet;
const saved = new Map<string, Saved>();

/** The fixture's data, signed with the key `env` gives as the build CLI reads it (none: a development key). */
const buildWith = (env: Record<string, string>) =>
  buildDataInProcess(content, mkdtempSync(join(tmpdir(), "vkr-signed-dist-")), signingKeyFromEnv(env, false));

async function get(path: string, headers: Record<string, string> = {}): Promise<Saved & { status: number }> {
  const res = await fetch(svc.url + path, { headers });
  return { status: res.status, headers: headerRecord(res.headers), body: new Uint8Array(await res.arrayBuffer()) };
}

async function post(path: string, json: unknown, headers: Record<string, string> = {}): Promise<Saved & { status: number }> {
  const res = await fetch(svc.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(json),
  });
  return { status: res.status, headers: headerRecord(res.headers), body: new Uint8Array(await res.arrayBuffer()) };
}

/** The independent check: the library verifies the signature, and the body's sha-256 is compared here. */
async function independentlyVerify(answer: Saved, keys: KeySet): Promise<boolean> {
  const digest = `sha-256=:${createHash("sha256").update(answer.body).digest("base64")}:`;
  if (answer.headers["content-digest"] !== digest) return false;
  const byKid = new Map(keys.keys.map((k) => [k.kid, createPublicKey({ key: k, format: "jwk" })]));
  try {
    const ok = await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          const key = byKid.get(String(params.keyid));
          return key ? { id: String(params.keyid), algs: ["ed25519"], verify: createVerifier(key, "ed25519") } : null;
        },
        requiredFields: ["content-digest", "knowledge-identity"],
      },
      { status: 200, headers: answer.headers },
    );
    return ok === true;
  } catch {
    return false;
  }
}

const identityOf = (answer: Saved) =>
  Object.fromEntries(
    [...answer.headers["knowledge-identity"]!.matchAll(/([a-z]+)=(?:"([^"]*)"|:([^:]*):)/g)].map((m) => [m[1], m[2] ?? m[3]]),
  );
const flipByte = (bytes: Uint8Array, at: number) => {
  const copy = new Uint8Array(bytes);
  copy[at] = copy[at] === 0x20 ? 0x21 : 0x20;
  return copy;
};
const mcpSaved = (result: any): Saved => ({
  headers: result._meta as Record<string, string>,
  body: new TextEncoder().encode(result.content[0].text as string),
});

beforeAll(async () => {
  content = writeFixtureContent();
  // A release-style build: signed at build time with key A, served by a runtime holding key A.
  dist = await buildWith({ SIGNING_KEY: pem(keyA) });
  svc = await startTestService(dist, { SIGNING_KEY: JSON.stringify(keyA.privateKey.export({ format: "jwk" })) });
  member = (
    await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel" } })
  ).body.keys[0].key as string;
  const res = await get("/.well-known/jwks.json");
  jwks = JSON.parse(Buffer.from(res.body).toString("utf8")) as KeySet;
});
afterAll(() => svc?.close());

describe("keys", () => {
  it("publishes key A with its RFC 7638 thumbprint as kid (as jose computes it), and the build says it signed with it", async () => {
    const res = await get("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("application/jwk-set+json");
    const kid = await calculateJwkThumbprint(publicJwk(keyA) as Parameters<typeof calculateJwkThumbprint>[0]);
    expect(jwks.keys).toEqual([{ kty: "OKP", crv: "Ed25519", x: publicJwk(keyA).x, kid, use: "sig", alg: "EdDSA" }]);
    const manifest = JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8"));
    expect(manifest.signing).toMatchObject({ kid, alg: "ed25519", dev: false });
    expect(JSON.stringify(manifest)).not.toContain(String(keyA.privateKey.export({ format: "jwk" }).d));
  });
});

describe("static answers (signed by the build)", () => {
  it("a full node, its lean and layer-selected variants, a locked view and the indexes verify, and say what they are", async () => {
    const key = { "x-service-key": member };
    const full = await get("/api/demo?vertical=travel&node=trv-m1", key);
    const lean = await get("/api/demo?vertical=travel&node=trv-m1&lean=true", key);
    const layers = await get("/api/demo?vertical=travel&node=trv-m1&layers=action,logic", key);
    const index = await get("/api/demo?vertical=travel");
    const leanIndex = await get("/api/demo?vertical=travel&lean=true");
    for (const answer of [full, lean, layers, index, leanIndex]) {
      expect(answer.status).toBe(200);
      expect(await independentlyVerify(answer, jwks)).toBe(true);
    }
    const version = JSON.parse(Buffer.from(full.body).toString("utf8")).node.version as string;
    const buildId = JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")).build_id as string;
    expect(identityOf(full)).toEqual({ vertical: "travel", node: "trv-m1", version, view: "full", build: buildId });
    expect(identityOf(lean)).toMatchObject({ node: "trv-m1", view: "lean" });
    expect(identityOf(layers)).toMatchObject({ node: "trv-m1", view: "full", layers: "logic+action" });
    expect(identityOf(index)).toEqual({ vertical: "travel", view: "index", build: buildId });
    // Dated when served: the build's digest and identity, signed again with the time served.
    for (const answer of [full, lean, layers, index, leanIndex])
      expect(answer.headers["signature-input"]).toContain(`;created=${Math.floor(svc.clock.now() / 1000)};`);
    expect(full.headers["signature-input"]).toContain(`keyid="${jwks.keys[0]!.kid}"`);
    saved.set("full", full);
  });

  it("serving them signs at most once a second per answer: repeated reads in one second carry one signature, the next second another", async () => {
    const signer = svc.service.deps.shared.signer;
    const { stamp } = signer;
    // Ed25519 is deterministic, so equal headers prove nothing: the signatures made are counted by object.
    const made = new Set<object>();
    (signer as { stamp: typeof stamp }).stamp = (...args) => {
      const headers = stamp(...args);
      made.add(headers);
      return headers;
    };
    try {
      const key = { "x-service-key": member };
      const path = "/api/demo?vertical=travel&node=trv-m1";
      const first = await Promise.all(Array.from({ length: 20 }, () => get(path, key)));
      expect(new Set(first.map((a) => a.headers.signature)).size).toBe(1);
      expect(made.size).toBe(1);
      svc.clock.advance(1000);
      const next = await get(path, key);
      expect(made.size).toBe(2);
      expect(next.headers.signature).not.toBe(first[0]!.headers.signature);
      expect(next.headers["content-digest"]).toBe(first[0]!.headers["content-digest"]);
      expect(await independentlyVerify(next, jwks)).toBe(true);
    } finally {
      (signer as { stamp: typeof stamp }).stamp = stamp;
    }
  });

  it("static reads, repeated, make no new answer to sign (a layer selection is derived and signed once)", async () => {
    const signer = svc.service.deps.shared.signer;
    const { sign, signDigest } = signer;
    let calls = 0;
    (signer as { sign: typeof sign }).sign = (...args) => (calls++, sign(...args));
    (signer as { signDigest: typeof signDigest }).signDigest = (...args) => (calls++, signDigest(...args));
    try {
      const key = { "x-service-key": member };
      await get("/api/demo?vertical=travel&node=trv-m1&layers=directive", key);
      expect(calls).toBe(1);
      calls = 0;
      for (let i = 0; i < 5; i++) {
        for (const path of [
          "/api/demo?vertical=travel&node=trv-m1",
          "/api/demo?vertical=travel&node=trv-m1&lean=true",
          "/api/demo?vertical=travel",
          "/api/demo?vertical=travel&node=trv-m6",
          "/api/demo?vertical=travel&node=trv-m1&layers=directive",
        ]) {
          expect((await get(path, path.includes("trv-m6") ? {} : key)).headers.signature).toBeDefined();
        }
      }
      expect(calls).toBe(0);
      await post("/api/evaluate", { vertical: "travel", node: "trv-m1", facts: {} }, key);
      expect(calls).toBe(1);
    } finally {
      (signer as { sign: typeof sign }).sign = sign;
      (signer as { signDigest: typeof signDigest }).signDigest = signDigest;
    }
  });

  it("a free locked view of a gated node verifies too", async () => {
    const locked = await get("/api/demo?vertical=travel&node=trv-m6");
    expect(locked.status).toBe(200);
    expect(identityOf(locked).view).toMatch(/^locked/);
    expect(await independentlyVerify(locked, jwks)).toBe(true);
  });

  it("tampering fails: one byte of the body, the node version, or the build id", async () => {
    const full = saved.get("full")!;
    const at = Buffer.from(full.body).indexOf(Buffer.from('"title"')) + 2;
    expect(await independentlyVerify({ ...full, body: flipByte(full.body, at) }, jwks)).toBe(false);
    const identity = full.headers["knowledge-identity"]!;
    const version = identityOf(full).version!;
    const otherVersion = version.slice(0, -1) + (version.endsWith("0") ? "1" : "0");
    expect(
      await independentlyVerify(
        {
          ...full,
          headers: { ...full.headers, "knowledge-identity": identity.replace(`version="${version}"`, `version="${otherVersion}"`) },
        },
        jwks,
      ),
    ).toBe(false);
    const build = identityOf(full).build!;
    const otherBuild = build.slice(0, -1) + (build.endsWith("0") ? "1" : "0");
    expect(
      await independentlyVerify(
        { ...full, headers: { ...full.headers, "knowledge-identity": identity.replace(`build="${build}"`, `build="${otherBuild}"`) } },
        jwks,
      ),
    ).toBe(false);
    // The untouched answer still verifies (the checks above fail for the change, not for the harness).
    expect(await independentlyVerify(full, jwks)).toBe(true);
  });
});

describe("dynamic answers (signed at run time)", () => {
  it("an evaluation verifies, dated, and covers the facts given through their RFC 8785 digest", async () => {
    const facts = { condition_b: false, condition_a: true };
    const res = await post("/api/evaluate", { vertical: "travel", node: "trv-m1", facts }, { "x-service-key": member });
    expect(res.status).toBe(200);
    expect(await independentlyVerify(res, jwks)).toBe(true);
    const identity = identityOf(res);
    expect(identity).toMatchObject({ vertical: "travel", node: "trv-m1", view: "evaluation" });
    expect(identity.input).toBe(
      createHash("sha256")
        .update(canonicalize({ condition_a: true, condition_b: false }))
        .digest("base64"),
    );
    expect(res.headers["signature-input"]).toMatch(/;created=\d+;/);
    // Other facts → other input digest: a saved answer cannot be passed off as the answer to other facts.
    const other = await post(
      "/api/evaluate",
      { vertical: "travel", node: "trv-m1", facts: { condition_a: false } },
      { "x-service-key": member },
    );
    expect(identityOf(other).input).not.toBe(identity.input);
    expect(
      await independentlyVerify(
        {
          ...res,
          headers: {
            ...res.headers,
            "knowledge-identity": res.headers["knowledge-identity"]!.replace(identity.input!, identityOf(other).input!),
          },
        },
        jwks,
      ),
    ).toBe(false);
    saved.set("evaluation", res);
  });

  it("the same evaluation asked again (facts in another order, a second later) is the same bytes, dated and signed anew, and counted", async () => {
    const ask = (facts: Record<string, boolean>) =>
      post("/api/evaluate", { vertical: "travel", node: "trv-m1", facts }, { "x-service-key": member });
    const hour = async () =>
      ((await (await fetch(`${svc.url}/api/keys`, { headers: { "x-service-key": member } })).json()) as { usage: { hour: number } }).usage
        .hour;
    const before = await hour();
    const first = await ask({ condition_b: false, condition_a: true });
    const created = (answer: Saved) => Number(/;created=(\d+);/.exec(answer.headers["signature-input"]!)![1]);
    // A second later, so the second answer's signature cannot be the first one's.
    svc.clock.advance(1000);
    const again = await ask({ condition_a: true, condition_b: false });
    expect(Buffer.from(again.body).equals(Buffer.from(first.body))).toBe(true);
    expect(again.headers["content-digest"]).toBe(first.headers["content-digest"]);
    expect(created(again)).toBeGreaterThan(created(first));
    expect(again.headers.signature).not.toBe(first.headers.signature);
    expect(await independentlyVerify(first, jwks)).toBe(true);
    expect(await independentlyVerify(again, jwks)).toBe(true);
    expect(await hour()).toBe(before + 2);
  });

  it("a search verifies, and one changed byte of its body fails", async () => {
    const res = await get("/api/search?q=fixture&vertical=travel");
    expect(res.status).toBe(200);
    expect(await independentlyVerify(res, jwks)).toBe(true);
    expect(identityOf(res)).toMatchObject({ vertical: "travel", view: "search" });
    expect(await independentlyVerify({ ...res, body: flipByte(res.body, 5) }, jwks)).toBe(false);
  });
});

describe("more dynamic answers", () => {
  it("a delta page verifies, its query covered by the input digest", async () => {
    const res = await get("/v1/delta?vertical=travel&limit=2", { "x-service-key": member });
    expect(res.status).toBe(200);
    expect(await independentlyVerify(res, jwks)).toBe(true);
    expect(identityOf(res)).toMatchObject({
      vertical: "travel",
      view: "delta",
      input: createHash("sha256")
        .update(canonicalize({ vertical: "travel", since: null, cursor: null, limit: 2 }))
        .digest("base64"),
    });
  });

  it("a free answer warned about a refused key (its bytes are not the build's) is signed when sent", async () => {
    const res = await get("/api/demo?vertical=travel", { "x-service-key": "svc_live_notakeyatall000000000000000" });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body).toString("utf8")).toContain("credential_problem");
    expect(await independentlyVerify(res, jwks)).toBe(true);
    expect(identityOf(res)).toMatchObject({ vertical: "travel", view: "index" });
  });
});

describe("MCP answers (official SDK client): the same digest and signature in _meta", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "vkr-signing-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { "x-service-key": member } } }),
    );
  });
  afterAll(() => client?.close());

  it("get_node (static) carries the signature REST sends for the same bytes in the same second", async () => {
    const result = await client.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m1", lean: false } });
    const answer = mcpSaved(result);
    expect(await independentlyVerify(answer, jwks)).toBe(true);
    expect(answer.headers.signature).toBe(
      (await get("/api/demo?vertical=travel&node=trv-m1", { "x-service-key": member })).headers.signature,
    );
    expect(await independentlyVerify({ ...answer, body: flipByte(answer.body, 10) }, jwks)).toBe(false);
    saved.set("mcp-node", answer);
  });

  it("get_node's default (lean) and a layer selection verify", async () => {
    for (const args of [
      { vertical: "travel", node: "trv-m1" },
      { vertical: "travel", node: "trv-m1", layers: ["logic"] },
    ]) {
      const answer = mcpSaved(await client.callTool({ name: "get_node", arguments: args }));
      expect(await independentlyVerify(answer, jwks)).toBe(true);
    }
  });

  it("evaluate_rules (dynamic) verifies and names the node and version", async () => {
    const result = await client.callTool({
      name: "evaluate_rules",
      arguments: { vertical: "travel", node: "trv-m1", facts: { condition_a: true } },
    });
    const answer = mcpSaved(result);
    expect(await independentlyVerify(answer, jwks)).toBe(true);
    expect(identityOf(answer)).toMatchObject({
      node: "trv-m1",
      view: "evaluation",
      version: (result.structuredContent as { version: string }).version,
    });
    saved.set("mcp-evaluation", answer);
  });

  it("search (dynamic) verifies", async () => {
    const answer = mcpSaved(await client.callTool({ name: "search", arguments: { q: "fixture" } }));
    expect(await independentlyVerify(answer, jwks)).toBe(true);
    expect(identityOf(answer)).toMatchObject({ vertical: "*", view: "search" });
  });
});

describe("a development build served without SIGNING_KEY", () => {
  it("publishes the build's development key and the server's own, and both kinds of answer verify", { timeout: 180_000 }, async () => {
    const devDist = await buildWith({ SIGNING_KEY: "" });
    const manifest = JSON.parse(readFileSync(join(devDist, "data", "manifest.json"), "utf8"));
    expect(manifest.signing.dev).toBe(true);
    const dev = await startTestService(devDist);
    try {
      expect(dev.logs.some((l) => l.includes("SIGNING_KEY is not set"))).toBe(true);
      const keys = (await dev.request("/.well-known/jwks.json")).body as KeySet;
      expect(keys.keys).toHaveLength(2);
      expect(keys.keys.map((k) => k.kid)).toContain(manifest.signing.kid);
      const fetchSaved = async (path: string) => {
        const res = await fetch(dev.url + path);
        return { headers: headerRecord(res.headers), body: new Uint8Array(await res.arrayBuffer()) };
      };
      // The build's development key stays listed (what it signed is checked when publishing);
      // answers are served dated, so signed by the server's own key.
      const index = await fetchSaved("/api/demo?vertical=travel");
      expect(index.headers["signature-input"]).not.toContain(`keyid="${manifest.signing.kid}"`);
      expect(await independentlyVerify(index, keys)).toBe(true);
      const search = await fetchSaved("/api/search?q=fixture");
      expect(search.headers["signature-input"]).not.toContain(`keyid="${manifest.signing.kid}"`);
      expect(await independentlyVerify(search, keys)).toBe(true);
    } finally {
      await dev.close();
    }
  });
});

describe("verifying later", () => {
  it("the typed client's helper names node, version and build, and refuses a tampered answer", async () => {
    const full = saved.get("full")!;
    const result = await verifyAnswer(full, jwks);
    expect(result).toMatchObject({ ok: true, identity: { vertical: "travel", node: "trv-m1", view: "full" } });
    const tampered = await verifyAnswer({ ...full, body: flipByte(full.body, 40) }, jwks);
    expect(tampered).toMatchObject({ ok: false });
    expect(await verifyAnswer(saved.get("mcp-evaluation")!, jwks)).toMatchObject({ ok: true, identity: { view: "evaluation" } });
  });

  it("with what the caller expected, refuses a genuine answer for another node, version, build or facts, and one too old", async () => {
    const full = saved.get("full")!;
    const evaluation = saved.get("evaluation")!;
    const { version, build } = identityOf(full);
    // Genuine, and what was asked: accepted (the service's clock is the test's).
    const now = new Date(svc.clock.now());
    expect(await verifyAnswer(full, jwks, { vertical: "travel", node: "trv-m1", version, build, maxAgeSeconds: 600, now })).toMatchObject({
      ok: true,
    });
    const asked = { condition_b: false, condition_a: true };
    expect(await verifyAnswer(evaluation, jwks, { node: "trv-m1", facts: asked, maxAgeSeconds: 600, now })).toMatchObject({ ok: true });
    // Genuine, but another question: refused, saying why.
    for (const [answer, expectation, reason] of [
      [full, { node: "trv-m2" }, /node "trv-m1", not "trv-m2"/],
      [full, { version: "0000" }, /version/],
      [full, { build: "another-build" }, /build/],
      [evaluation, { facts: { condition_a: false } }, /other facts/],
      [evaluation, { node: "trv-m2" }, /node/],
      [full, { facts: asked }, /not computed from facts/],
    ] as const) {
      const result = await verifyAnswer(answer, jwks, expectation);
      expect(result, JSON.stringify(expectation)).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    }
    // Every answer is dated, a prebuilt one too: a maximum age refuses an old one, and one dated ahead.
    for (const answer of [full, evaluation]) {
      const created = (await verifyAnswer(answer, jwks)) as { created?: Date };
      expect(created.created).toBeInstanceOf(Date);
      const later = new Date(created.created!.getTime() + 3_600_000);
      expect(await verifyAnswer(answer, jwks, { maxAgeSeconds: 600, now: later })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/signed 3600 s ago, more than the 600 s allowed/),
      });
      expect(await verifyAnswer(answer, jwks, { maxAgeSeconds: 7200, now: later })).toMatchObject({ ok: true });
      const earlier = new Date(created.created!.getTime() - 3_600_000);
      expect(await verifyAnswer(answer, jwks, { maxAgeSeconds: 600, now: earlier })).toMatchObject({ ok: false });
    }
  });

  it("after a key rotation (B current, A previous) answers signed with A still verify, and new ones are signed with B", async () => {
    const rotated = await startTestService(dist, {
      SIGNING_KEY: pem(keyB),
      SIGNING_PREVIOUS_KEYS: JSON.stringify({ keys: [publicJwk(keyA)] }),
    });
    try {
      const keys = JSON.parse(
        Buffer.from(await (await fetch(`${rotated.url}/.well-known/jwks.json`)).arrayBuffer()).toString("utf8"),
      ) as KeySet;
      expect(keys.keys.map((k) => k.x).sort()).toEqual([publicJwk(keyA).x, publicJwk(keyB).x].sort());
      expect(await independentlyVerify(saved.get("evaluation")!, keys)).toBe(true);
      const search = await fetch(`${rotated.url}/api/search?q=fixture&vertical=travel`);
      const answer = { headers: headerRecord(search.headers), body: new Uint8Array(await search.arrayBuffer()) };
      expect(answer.headers["signature-input"]).toContain(
        `keyid="${await calculateJwkThumbprint(publicJwk(keyB) as Parameters<typeof calculateJwkThumbprint>[0])}"`,
      );
      expect(await independentlyVerify(answer, keys)).toBe(true);
      // Without the rotation's key set (only A's), B's answer does not verify.
      expect(await independentlyVerify(answer, jwks)).toBe(false);
    } finally {
      await rotated.close();
    }
  });

  it("with the server gone: saved answers verify against a saved JWK Set, with `vkr verify-answer` too", { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "vkr-saved-answers-"));
    writeFileSync(join(dir, "jwks.json"), JSON.stringify(jwks));
    const full = saved.get("full")!;
    // As `curl -si` saves it: status line, headers, blank line, body.
    const http = Buffer.concat([
      Buffer.from(
        `HTTP/1.1 200 OK\r\n${Object.entries(full.headers)
          .map(([n, v]) => `${n}: ${v}`)
          .join("\r\n")}\r\n\r\n`,
      ),
      Buffer.from(full.body),
    ]);
    writeFileSync(join(dir, "answer.http"), http);
    const mcp = saved.get("mcp-evaluation")!;
    writeFileSync(
      join(dir, "evaluation.json"),
      JSON.stringify({ content: [{ type: "text", text: Buffer.from(mcp.body).toString("utf8") }], _meta: mcp.headers }),
    );
    const tampered = Buffer.from(http);
    tampered[tampered.length - 20] = tampered[tampered.length - 20] === 0x20 ? 0x21 : 0x20;
    writeFileSync(join(dir, "tampered.http"), tampered);
    await svc.close();

    expect(await independentlyVerify(full, JSON.parse(readFileSync(join(dir, "jwks.json"), "utf8")))).toBe(true);
    const ok = await vkr(["verify-answer", join(dir, "answer.http"), "--jwks", join(dir, "jwks.json")]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`verified: node travel/trv-m1 version ${identityOf(full).version}, build ${identityOf(full).build}`);
    const json = await vkr(["verify-answer", join(dir, "evaluation.json"), "--jwks", join(dir, "jwks.json"), "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, identity: { node: "trv-m1", view: "evaluation" } });
    const bad = await vkr(["verify-answer", join(dir, "tampered.http"), "--jwks", join(dir, "jwks.json")]);
    expect(bad.code).toBe(4);
    expect(bad.stdout).toContain("NOT VERIFIED: the body does not match Content-Digest");
  });
});

function vkr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "" }, timeout: 170_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}
