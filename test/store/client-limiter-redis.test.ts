/** The client limiter on Redis (the local server on 127.0.0.1:6379), each test under its own prefix. */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { createRedisBackend } from "../../runtime/state/storage/redis-backend.ts";
import { deletePrefix } from "../cluster/_cluster.ts";
import { testClientLimiter } from "./client-limiter-contract.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const RUN = `vkr-test:${randomBytes(4).toString("hex")}:`;
let n = 0;

afterAll(() => deletePrefix(REDIS_URL, RUN));

testClientLimiter("redis", true, () => {
  const prefix = `${RUN}${n++}:`;
  return { open: () => createRedisBackend({ url: REDIS_URL, prefix }) };
});
