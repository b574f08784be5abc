/**
 * GET /api/demo pins the build it started on; the limits it meters with must be that build's too.
 * A release swapped in while the request waits on the store (here: while the key is looked up)
 * must not pair the old build's content with the new build's limits.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Artifacts, loadArtifacts } from "../../runtime/state/releases/artifacts.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { issueKey } from "../mcp/_setup.ts";

let svc: TestService;
let next: Artifacts;
let key: string;

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  // The next release: the same content with a lower hourly limit (200 → 50).
  const content = writeFixtureContent();
  const limitsFile = join(content, "_catalog", "limits.yaml");
  writeFileSync(limitsFile, readFileSync(limitsFile, "utf8").replace(/^hourly_rate_limit: 200$/m, "hourly_rate_limit: 50"));
  next = await loadArtifacts(buildContentTo(content));
  key = await issueKey(svc, "travel");
}, 60_000);
afterAll(() => svc?.close());

describe("a release swapped in during a GET /api/demo", () => {
  it("meters with the limits of the build whose content it serves", async () => {
    const { deps } = svc.service;
    const first = deps.build.current;
    expect(next.catalog.limits.hourly_rate_limit).toBe(50);
    expect(first.catalog.limits.hourly_rate_limit).toBe(200);
    const lookup = deps.keys.get.bind(deps.keys);
    let swapped = false;
    // The swap lands while the request awaits the store, after the route pinned its build.
    deps.keys.get = async (hash) => {
      const record = await lookup(hash);
      if (!swapped) {
        swapped = true;
        deps.build.current = next;
      }
      return record;
    };
    const res = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
    expect(swapped).toBe(true);
    expect(res.status).toBe(200);
    // The content is the pinned (first) build's …
    const meta = first.nodeMeta("travel", "trv-m1")!;
    expect(res.headers.get("etag")).toBe((await first.node("travel", meta.id, "full")).etag);
    // … and so are the limits: 200 an hour, one used.
    expect(res.headers.get("ratelimit")).toBe('"hour";r=199;t=1800');
    expect(res.headers.get("ratelimit-policy")).toContain('"hour";q=200');
    // The next request starts on the new build and meters with its limits.
    const after = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
    expect(after.headers.get("ratelimit")).toBe('"hour";r=48;t=1800');
  });
});
