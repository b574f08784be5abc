/**
 * The typed client. Its types are generated from the OpenAPI description (the committed
 * file must equal a fresh generation), and every published operation is called through it against
 * a started server; every answer is checked against the OpenAPI description too.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ServiceClient } from "../../client/index.ts";
import { OPERATIONS } from "../../runtime/edges/routes/index.ts";
import { CLIENT_SCHEMA_FILE, generateClientSchema } from "../../scripts/client-schema.ts";
import { createOpenApiChecker } from "../helpers/openapi-check.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

interface Exchange {
  method: string;
  path: string;
  status: number;
  type: string | null;
  text: string;
}

let svc: TestService;
const exchanges: Exchange[] = [];

/** A fetch that keeps a copy of every answer, so each can be checked against the OpenAPI description. */
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  exchanges.push({
    method: request.method,
    path: new URL(request.url).pathname,
    status: response.status,
    type: response.headers.get("content-type"),
    text: await response.clone().text(),
  });
  return response;
};

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
});
afterAll(() => svc?.close());

describe("client/schema.gen.ts", () => {
  it("is exactly what openapi-typescript generates from the current OpenAPI description (run `npm run gen:client`)", async () => {
    expect(readFileSync(CLIENT_SCHEMA_FILE, "utf8")).toBe(await generateClientSchema());
  });
});

describe("the typed client", () => {
  it("calls every published operation against a started server", async () => {
    const options = { baseUrl: svc.url, fetch: recordingFetch };
    const anon = createClient(options);
    const admin = createClient({ ...options, adminKey: ADMIN_KEY });
    const trialKey = (await anon.POST("/api/trial", { body: { agent_id: "client-suite" } })).data!.key;
    const trial = createClient({ ...options, key: trialKey });
    const issued = await admin.POST("/api/keys", {
      body: { vertical: "travel", label: "client-suite", quantity: 2, agent_id: "client-member" },
    });
    const [memberKey, spareKey] = issued.data!.keys;
    const member = createClient({ ...options, key: memberKey!.key });
    const text = { parseAs: "text" } as const;

    /** One call per operation; `ok` means the call must succeed (2xx), otherwise it must only be documented. */
    const calls: Record<string, { ok: boolean; call: () => Promise<{ response: Response }> }> = {
      getStatus: { ok: true, call: () => anon.GET("/api/status") },
      getDemo: { ok: true, call: () => anon.GET("/api/demo", { params: { query: { vertical: "travel", lean: true } } }) },
      evaluateRules: {
        ok: true,
        call: () =>
          trial.POST("/api/evaluate", {
            body: { vertical: "ai-compliance", node: "aic-start", facts: { condition_a: true, condition_b: false } },
          }),
      },
      getDelta: { ok: true, call: () => member.GET("/v1/delta", { params: { query: { vertical: "travel" } } }) },
      createTrial: { ok: true, call: () => anon.POST("/api/trial", { body: { agent_id: "client-suite-2", vertical: "travel" } }) },
      getKey: { ok: true, call: () => member.GET("/api/keys") },
      issueKeys: {
        ok: true,
        call: () => admin.POST("/api/keys", { body: { vertical: "all", permanent: true, label: "client-suite-permanent" } }),
      },
      verifyKey: { ok: true, call: () => trial.GET("/api/verify") },
      health: { ok: true, call: () => anon.GET("/healthz") },
      getSigningKeys: { ok: true, call: () => anon.GET("/.well-known/jwks.json") },
      ready: { ok: true, call: () => anon.GET("/readyz") },
      listKeys: { ok: true, call: () => admin.GET("/api/admin/keys", { params: { query: { label: "client-suite" } } }) },
      getKeyUsage: { ok: true, call: () => admin.GET("/api/admin/keys/usage", { params: { query: { id: memberKey!.id } } }) },
      revokeKey: { ok: true, call: () => admin.POST("/api/admin/keys/revoke", { body: { id: spareKey!.id } }) },
      // The old secret keeps working for the grace period, so the member calls below still pass.
      rerollKey: { ok: true, call: () => admin.POST("/api/admin/keys/reroll", { body: { id: memberKey!.id, grace_seconds: 3600 } }) },
      updateKey: {
        ok: true,
        call: () => admin.POST("/api/admin/keys/update", { body: { id: memberKey!.id, label: "client-suite-relabelled" } }),
      },
      readAudit: { ok: true, call: () => admin.GET("/api/admin/audit", { params: { query: { limit: 5 } } }) },
      getMetrics: { ok: true, call: () => anon.GET("/metrics", text) },
      getRoot: { ok: true, call: () => anon.GET("/", text) },
      browseVerticals: { ok: true, call: () => anon.GET("/browse", text) },
      browseVertical: { ok: true, call: () => anon.GET("/browse/{vertical}", { params: { path: { vertical: "travel" } }, ...text }) },
      browseNode: {
        ok: true,
        call: () => member.GET("/browse/{vertical}/{node}", { params: { path: { vertical: "travel", node: "trv-m7" } }, ...text }),
      },
      browseKeyForm: { ok: true, call: () => anon.GET("/browse/key", text) },
      // No browser Origin from a script: refused as cross-site, which is documented.
      browseSetKey: { ok: false, call: () => anon.POST("/browse/key", text) },
      browseLogout: { ok: false, call: () => anon.POST("/browse/logout", text) },
      browseSearch: {
        ok: true,
        call: () => member.GET("/browse/search", { params: { query: { q: "fixture", vertical: "travel" } }, ...text }),
      },
      getGuide: { ok: true, call: () => anon.GET("/docs/{page}", { params: { path: { page: "configuration" } }, ...text }) },
      getLlmsTxt: { ok: true, call: () => anon.GET("/llms.txt", text) },
      getLlmsFullTxt: { ok: true, call: () => anon.GET("/llms-full.txt", text) },
      getWaitlist: { ok: true, call: () => anon.GET("/api/waitlist") },
      joinWaitlist: { ok: true, call: () => anon.POST("/api/waitlist", { body: { vertical: "logistics", agent_id: "client-suite" } }) },
      registerInterest: { ok: true, call: () => anon.POST("/api/interest", { body: { vertical: "hrm", agent_id: "client-suite" } }) },
      getInterestSummary: { ok: true, call: () => anon.GET("/api/interest/summary") },
      submitProofOfValue: {
        ok: true,
        call: () => trial.POST("/api/telemetry/pov", { body: { trial_key: trialKey, confidence_score: 0.9 } }),
      },
      getProofOfValue: { ok: true, call: () => anon.GET("/api/telemetry/pov") },
      submitMemberTelemetry: { ok: true, call: () => member.POST("/api/telemetry", { body: { confidence_score: 0.8 } }) },
      logReferral: {
        ok: true,
        call: () => member.POST("/api/referral", { body: { referring_key: memberKey!.key, referred_agent_id: "client-suite-friend" } }),
      },
      search: { ok: true, call: () => anon.GET("/api/search", { params: { query: { q: "fixture node" } } }) },
      mcp: {
        ok: true,
        call: () =>
          anon.POST("/mcp", { body: { jsonrpc: "2.0", id: 1, method: "ping" } as never, headers: { accept: "application/json" } }),
      },
      getCheckout: { ok: true, call: () => anon.GET("/api/checkout") },
      // Payments are not configured on this test service: the answers must still be documented.
      checkout: {
        ok: false,
        call: () => anon.POST("/api/checkout", { body: { vertical: "travel", payment_method: "card", contact: "client@example.org" } }),
      },
      stripeWebhook: {
        ok: false,
        call: () => anon.POST("/api/checkout/webhook", { body: {} as never, params: { header: { "Stripe-Signature": "t=1,v1=00" } } }),
      },
      cardSuccess: {
        ok: false,
        call: () =>
          anon.GET("/checkout/success", { params: { query: { session_id: "cs_test_client" } }, headers: { accept: "application/json" } }),
      },
      listPayments: { ok: true, call: () => admin.GET("/api/admin/payments") },
      reconcilePayments: { ok: true, call: () => admin.POST("/api/admin/payments/reconcile") },
      acknowledgePayment: {
        ok: false,
        call: () => admin.POST("/api/admin/payments/acknowledge", { body: { id: `pur_${"0".repeat(32)}`, note: "client suite" } }),
      },
    };

    const missing = OPERATIONS.map((op) => op.operationId).filter((id) => !(id in calls));
    expect(missing, "operations without a call in this test: add one").toEqual([]);

    const check = createOpenApiChecker();
    for (const op of OPERATIONS) {
      const before = exchanges.length;
      const { response } = await calls[op.operationId]!.call();
      if (calls[op.operationId]!.ok)
        expect(response.status, `${op.operationId}: ${exchanges.at(-1)?.text.slice(0, 200)}`).toBeLessThan(300);
      const exchange = exchanges[before]!;
      expect(exchange.method.toLowerCase()).toBe(op.method);
      const body = exchange.type?.includes("json") && exchange.text ? JSON.parse(exchange.text) : exchange.text;
      expect(check(exchange.method, exchange.path, exchange.status, exchange.type, body), op.operationId).toEqual([]);
    }
  });

  it("types the answers: data is the documented shape", async () => {
    const client: ServiceClient = createClient({ baseUrl: svc.url });
    const { data, error } = await client.GET("/api/demo", { params: { query: { vertical: "travel", node: "trv-m1" } } });
    expect(error).toBeUndefined();
    // Compiles only because `data` is typed from the OpenAPI description.
    const title: string | undefined = data && "node" in data ? data.node.title : undefined;
    expect(title).toBe("Fixture node trv-m1");
  });
});
