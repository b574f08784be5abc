/**
 * Lookalike identities across scripts: an agent_id or contact with a Cyrillic а or о in place of
 * the Latin letter inside a word used to be a new account, trial, waitlist place or demand signal.
 * Every endpoint that reads an identifier refuses a word that mixes scripts (400
 * `validation_failed` with the field's pointer), before anything is counted or charged; a name
 * written wholly in another script, and Japanese or Korean mixed with Latin, are still accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { TRIALS_PER_CLIENT_HOUR: "1000" })));
afterAll(() => svc?.close());

const CYRILLIC_A = "\u0430";
const CYRILLIC_O = "\u043e";
const GREEK_O = "\u03bf";
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** Each endpoint and field that reads an identifier people type, with a body around it. */
const FIELDS: Array<[string, string, (id: string) => Record<string, unknown>, Record<string, string>]> = [
  ["/api/trial", "/agent_id", (id) => ({ agent_id: id, vertical: "travel" }), {}],
  ["/api/waitlist", "/agent_id", (id) => ({ agent_id: id, vertical: "logistics" }), {}],
  ["/api/waitlist", "/contact", (id) => ({ contact: `${id}@example.com`, vertical: "logistics" }), {}],
  ["/api/interest", "/agent_id", (id) => ({ agent_id: id, vertical: "logistics" }), {}],
  ["/api/interest", "/contact", (id) => ({ contact: `${id}@example.com`, vertical: "logistics" }), {}],
  ["/api/keys", "/agent_id", (id) => ({ agent_id: id, vertical: "travel" }), admin],
  ["/api/checkout", "/agent_id", (id) => ({ agent_id: id, vertical: "travel", payment_method: "agent_network" }), {}],
];

describe("identifiers mixing scripts within a word", () => {
  it.each(FIELDS)(
    "%s %s: a Cyrillic а or о inside a Latin word is refused before anything is counted",
    async (path, pointer, body, headers) => {
      for (const [n, lookalike] of [
        `${CYRILLIC_A}gent-${pointer.slice(1)}`,
        `r${CYRILLIC_O}bot-${pointer.slice(1)}`,
        `r${GREEK_O}bot-g`,
      ].entries()) {
        const res = await svc.request(path, { method: "POST", headers, json: body(lookalike) });
        expect(res.status, `${lookalike}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.body.code).toBe("validation_failed");
        expect(res.body.errors[0].pointer).toBe(pointer);
        expect(res.body.errors[0].message, String(n)).toMatch(/mixes scripts/);
      }
    },
  );

  it("the Latin name, a name wholly in another script, and Japanese with Latin are accepted", async () => {
    for (const agent_id of ["agent-latin", "\u0430\u0433\u0435\u043d\u0442-7", "\u6771\u4eac\u30bf\u30ef\u30fcbot", "caf\u00e9-bot"]) {
      const res = await svc.request("/api/trial", { method: "POST", json: { agent_id, vertical: "travel" } });
      expect(res.status, `${agent_id}: ${res.text.slice(0, 200)}`).toBe(200);
    }
    const waitlist = await svc.request("/api/waitlist", {
      method: "POST",
      json: { contact: "\u0430\u043b\u0438\u0441\u0430@example.com", vertical: "logistics" },
    });
    expect(waitlist.status).toBe(200);
  });

  it("a mixed name cannot take a second trial beside the Latin one it imitates", async () => {
    expect((await svc.request("/api/trial", { method: "POST", json: { agent_id: "paypal-agent", vertical: "travel" } })).status).toBe(200);
    const lookalike = await svc.request("/api/trial", {
      method: "POST",
      json: { agent_id: `p${CYRILLIC_A}yp${CYRILLIC_A}l-agent`, vertical: "travel" },
    });
    expect(lookalike.status).toBe(400);
  });
});
