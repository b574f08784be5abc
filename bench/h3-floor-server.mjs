// The framework floor: h3 v2 on srvx (what the service runs on) answering one route with the
// same prebuilt bytes and nothing else. The distance from the bare baseline to this is what the
// framework costs; the distance from this to the service is what metering costs.
import { readFileSync } from "node:fs";
import { H3 } from "h3";
import { FastResponse, serve } from "srvx";

const body = readFileSync(process.argv[2]);
const app = new H3();
app.get("/api/demo", () => new FastResponse(body, { status: 200, headers: { "content-type": "application/json; charset=utf-8" } }));
serve({ fetch: app.fetch, port: Number(process.argv[3]), hostname: "127.0.0.1", silent: true });
