// The durable floor: the bare node:http baseline plus the one step no metered request can skip,
// the atomic check-and-increment of the presented key's hour, day and month windows in the
// service's own embedded store (bench/floor-store.ts), awaited before the answer goes out. No h3, no key lookup, no
// headers beyond the baseline's. Its ratio to the baseline is the most a metered request on the
// embedded store can reach on this machine, whatever the framework and the handler cost.

import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createFloorStore } from "./floor-store.ts";

const body = readFileSync(process.argv[2]!);
const headers = { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) };
const store = createFloorStore();

createServer((req, res) => {
  const key = req.headers["x-service-key"];
  const consumed = typeof key === "string" ? store.consume(key) : Promise.resolve(null);
  consumed.then(
    () => {
      res.writeHead(200, headers);
      res.end(body);
    },
    (error: unknown) => {
      res.writeHead(500).end(String(error));
    },
  );
}).listen(Number(process.argv[3]), "127.0.0.1", () => process.stdout.write("ready\n"));
