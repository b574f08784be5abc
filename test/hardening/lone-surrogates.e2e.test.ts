/**
 * Ids that are not well-formed Unicode are refused. `"\udfff"` and `"\udffe"`
 * are different strings, but UTF-8 has no lone surrogates, so stored both became U+FFFD and
 * shared one record. Now any lone surrogate in a body (value or key) is 400 `invalid_unicode`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { TRIALS_PER_CLIENT_HOUR: "1000" })));
afterAll(() => svc?.close());

const post = (path: string, json: unknown, headers: Record<string, string> = {}) => svc.request(path, { method: "POST", json, headers });

function expectRefused(res: { status: number; body: any }, pointer: string): void {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe("invalid_unicode");
  expect(res.body.errors[0].pointer).toBe(pointer);
}

describe("lone surrogates in ids", () => {
  it("trial: \\udfff and \\udffe are both refused, nothing is issued; a well-formed id still works", async () => {
    expectRefused(await post("/api/trial", { agent_id: "agent-\udfff", vertical: "travel" }), "/agent_id");
    expectRefused(await post("/api/trial", { agent_id: "agent-\udffe", vertical: "travel" }), "/agent_id");
    expect((await post("/api/trial", { agent_id: "agent-\u{1F600}", vertical: "travel" })).status).toBe(200);
  });

  it("waitlist and interest: agent ids and contacts with lone surrogates never share a position", async () => {
    expectRefused(await post("/api/waitlist", { vertical: "legal", agent_id: "\udfff" }), "/agent_id");
    expectRefused(await post("/api/waitlist", { vertical: "legal", agent_id: "\udffe" }), "/agent_id");
    expectRefused(await post("/api/waitlist", { vertical: "legal", contact: "x\ud800@example.com" }), "/contact");
    expectRefused(await post("/api/interest", { vertical: "logistics", agent_id: "\udfff" }), "/agent_id");
    expectRefused(await post("/api/interest", { vertical: "logistics", contact: "\udc00@example.com" }), "/contact");
  });

  it("admin issuance and referrals: agent ids are refused the same way, and so is a lone surrogate in a key of the body", async () => {
    expectRefused(
      await post("/api/keys", { vertical: "travel", agent_id: "\udfff" }, { authorization: `Bearer ${ADMIN_KEY}` }),
      "/agent_id",
    );
    const key = (await post("/api/keys", { vertical: "travel" }, { authorization: `Bearer ${ADMIN_KEY}` })).body.keys[0].key;
    expectRefused(
      await post("/api/referral", { referring_key: key, referred_agent_id: "\udffe" }, { "x-service-key": key }),
      "/referred_agent_id",
    );
    expectRefused(await post("/api/waitlist", { vertical: "legal", agent_id: "ok", "\udfff": 1 }), "/");
  });
});
