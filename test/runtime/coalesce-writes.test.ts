/**
 * Responses ready within their request's turn are released in that turn's check phase (after
 * immediates already queued), while a response that already crossed a turn is not held again.
 */
import { H3 } from "h3";
import { expect, it } from "vitest";
import { useCoalescedWrites } from "../../runtime/shared/http/coalesce-writes.ts";

let laterCheckPhase = false;

function app(): H3 {
  const h3 = new H3();
  useCoalescedWrites(h3);
  h3.get("/ready", () => "ready");
  h3.get("/later", async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Runs in this later turn's check phase: before the response only if it were held again.
    setImmediate(() => (laterCheckPhase = true));
    return "later";
  });
  return h3;
}

it("holds a response that was ready in its turn until the check phase", async () => {
  let checkPhase = false;
  setImmediate(() => (checkPhase = true));
  const res = await app().fetch(new Request("http://local/ready"));
  expect(checkPhase).toBe(true);
  expect(await res.text()).toBe("ready");
});

it("does not hold a response that already waited for another turn", async () => {
  laterCheckPhase = false;
  const res = await app().fetch(new Request("http://local/later"));
  expect(laterCheckPhase).toBe(false);
  expect(await res.text()).toBe("later");
});
