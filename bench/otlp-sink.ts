/**
 * A local OTLP/HTTP sink for runs with traces on (`AB_TRACE` in `bench/ab.ts`): accepts
 * `POST /v1/traces`, answers 200 at once and counts requests and spans, so a run can tell whether
 * the service exported every span or its batch processor dropped some under load.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpSink {
  url: string;
  exports: number;
  spans: number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const sink = { exports: 0, spans: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      sink.exports++;
      // OTLP JSON has one "spanId" member per span (parents are "parentSpanId").
      sink.spans += Buffer.concat(chunks).toString("utf8").split('"spanId":').length - 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(sink, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
