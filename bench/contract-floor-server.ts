// The contract floor: h3 v2 on srvx (what the service runs on), the durable floor's quota write
// (bench/durable-floor-server.ts: the key's hour, day and month windows in the service's own
// SQLite backend, awaited), and the response headers the service itself sends with this node
// (CORS, security headers, cache policy, ETag, digest, signature, RateLimit, request id), taken
// from a live answer and sent as they are. No key lookup, no handler, no metrics. Its distance
// from the durable floor is what the framework and the contract's headers cost; its distance to
// the service is what the service's own code adds.
//
//   node --import tsx bench/contract-floor-server.ts <body file> <port> <headers file: JSON [[name, value], …]>
import { readFileSync } from "node:fs";
import { H3 } from "h3";
import { FastResponse, serve } from "srvx";
import { createFloorStore } from "./floor-store.ts";

const body = readFileSync(process.argv[2]!);
const headers = JSON.parse(readFileSync(process.argv[4]!, "utf8")) as Array<[string, string]>;
const store = createFloorStore();
const app = new H3();
app.get("/api/demo", async (event) => {
  const key = event.req.headers.get("x-service-key");
  if (key !== null) await store.consume(key);
  return new FastResponse(body, { status: 200, headers });
});
serve({ fetch: app.fetch, port: Number(process.argv[3]), hostname: "127.0.0.1", silent: true });
