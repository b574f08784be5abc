// The baseline: a bare node:http server answering every request with the same prebuilt bytes.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";

const body = readFileSync(process.argv[2]);
const headers = { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) };
createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.argv[3]), "127.0.0.1", () => process.stdout.write("ready\n"));
