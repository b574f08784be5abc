// The baseline: a bare node:http server answering every request with the same prebuilt bytes.
// With a third argument it also answers a POST as the MCP endpoint does at the least: it reads the
// body and parses it as JSON, then sends that file's bytes (a real get_node answer), so the cost
// of MCP's shape (a POST, a bigger answer) is measured apart from the service's own.

import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.argv[2]);
const headers = { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) };
const posted = process.argv[4] ? readFileSync(process.argv[4]) : null;
const postedHeaders = posted && { "content-type": "application/json", "content-length": String(posted.length) };
createServer((req, res) => {
  if (req.method !== "POST" || !posted) {
    res.writeHead(200, headers);
    res.end(body);
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200, postedHeaders);
    res.end(posted);
  });
}).listen(Number(process.argv[3]), "127.0.0.1", () => process.stdout.write("ready\n"));
