/**
 * A running server serves exactly one immutable build at a time. A content
 * build that lands while the server runs (`vkr build` beside `npm start`) must never mix the two:
 * `/readyz`, the root index, a node fetch and every ETag come from the same build, either the one
 * the server loaded or the new one swapped in whole.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { buildDataInProcess } from "../helpers/build-in-process.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

let content: string;
let dist: string;
let svc: TestService;

beforeAll(async () => {
  content = writeFixtureContent();
  dist = buildContentTo(content);
  svc = await startTestService(dist, { ANON_RATE_PER_MINUTE: "100000", RELEASE_POLL_MS: "200" });
}, 60_000);
afterAll(() => svc?.close());

/** The manifest a build id was published with, read from the build's own folder. */
const manifestOf = (buildId: string): { files: Record<string, string> } =>
  JSON.parse(readFileSync(join(dist, ".builds", buildId, "manifest.json"), "utf8"));
const etagOf = (buildId: string, rel: string) => `"${(manifestOf(buildId).files[rel] ?? "").slice(0, 32)}"`;
const bytesEtag = (text: string) => `"${createHash("sha256").update(text).digest("hex").slice(0, 32)}"`;

/** One consistent observation, or null when the server swapped builds between the first and last request. */
async function observe() {
  const before = (await svc.request("/readyz")).body.build_id as string;
  const index = await svc.request("/api/demo?vertical=travel");
  const added = await svc.request("/api/demo?vertical=travel&node=trv-m8");
  const seventh = await svc.request("/api/demo?vertical=travel&node=trv-m7");
  const after = (await svc.request("/readyz")).body.build_id as string;
  return before === after ? { buildId: before, index, added, seventh } : null;
}

describe("one build per server", () => {
  it("serves the old build or the whole new build after a rebuild under it, never a mix", async () => {
    // Only what needs no artifact bytes, so nothing of the old build is in the server's memory yet.
    const oldId = (await svc.request("/readyz")).body.build_id as string;
    expect((await svc.request("/api/demo?vertical=travel&node=trv-m8")).status).toBe(404);

    // Add a node after the running server loaded its build, and build again into the same dist.
    writeFixtureContent(content, { extraNodes: { travel: [{ id: "trv-m8", order: 8, next: [] }] } });
    // In this process (the CLI in a child adds a Node start and a browse site, and no proof: the
    // server sees only the published data swap, whoever wrote it).
    await buildDataInProcess(content, dist);
    // The build kept this process busy for longer than the server's keep-alive timeout: let
    // fetch see the sockets the server closed meanwhile before reusing one, or a request can go
    // out on a closed socket and fail with ECONNRESET.
    await new Promise((r) => setTimeout(r, 100));

    const seen = new Set<string>();
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const o = await observe();
      if (!o) continue;
      seen.add(o.buildId);
      const isNew = o.buildId !== oldId;
      // The index, its ETag and the build reported by /readyz agree.
      expect(o.index.status).toBe(200);
      expect(o.index.headers.get("etag")).toBe(bytesEtag(o.index.text));
      expect(o.index.headers.get("etag")).toBe(etagOf(o.buildId, "verticals/travel/index.json"));
      expect(o.index.text.includes('"trv-m8"')).toBe(isNew);
      // A node listed by that index can be fetched, one not listed cannot; bytes match their ETag.
      expect(o.added.status).toBe(isNew ? 200 : 404);
      expect(o.seventh.status).toBe(200);
      expect(o.seventh.headers.get("etag")).toBe(bytesEtag(o.seventh.text));
      expect(o.seventh.text.includes('"trv-m8"')).toBe(isNew);
      if (isNew) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // The new build is swapped in whole within the poll interval (a server that stays on the old one would also be consistent, but it should follow).
    expect([...seen].at(-1)).not.toBe(oldId);
  }, 60_000);
});
