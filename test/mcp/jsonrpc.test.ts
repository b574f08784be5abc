/** The envelope reader and the serialiser that embeds prebuilt JSON without re-parsing it. */
import { describe, expect, it } from "vitest";
import { RawJson, RpcError, readMessage, toJsonText } from "../../runtime/edges/mcp/jsonrpc.ts";

describe("toJsonText", () => {
  it("embeds raw JSON as a value, byte for byte", () => {
    const raw = '{"b":1,"a":"\\u00e9 \\"quoted\\""}';
    const text = toJsonText({ content: [{ type: "text", text: raw }], structuredContent: new RawJson(raw) });
    expect(text).toBe(`{"content":[{"type":"text","text":${JSON.stringify(raw)}}],"structuredContent":${raw}}`);
    expect(JSON.parse(text).structuredContent).toEqual(JSON.parse(raw));
  });

  it("leaves look-alike strings alone and is plain JSON.stringify without raw values", () => {
    const value = { note: "vkr-raw:0", other: "\\u0000vkr-raw:0" };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
    expect(toJsonText({ a: new RawJson("[1,2]"), b: new RawJson("null") })).toBe('{"a":[1,2],"b":null}');
  });
});

describe("readMessage", () => {
  it("classifies requests, notifications and client responses", () => {
    expect(readMessage({ jsonrpc: "2.0", id: 0, method: "ping" })).toEqual({ kind: "request", id: 0, method: "ping", params: {} });
    expect(readMessage({ jsonrpc: "2.0", id: "x", method: "tools/list", params: { cursor: "c" } })).toMatchObject({
      kind: "request",
      id: "x",
      params: { cursor: "c" },
    });
    expect(readMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).toEqual({
      kind: "notification",
      method: "notifications/initialized",
    });
    expect(readMessage({ jsonrpc: "2.0", id: 5, error: { code: -1, message: "no" } })).toEqual({ kind: "response" });
  });

  it("throws -32600 for batches and malformed envelopes", () => {
    for (const bad of [
      [],
      [{ jsonrpc: "2.0", id: 1, method: "ping" }],
      null,
      3,
      { jsonrpc: "2.0" },
      { jsonrpc: "2.0", id: true, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "" },
    ]) {
      expect(() => readMessage(bad), JSON.stringify(bad)).toThrow(RpcError);
      try {
        readMessage(bad);
      } catch (error) {
        expect((error as RpcError).code).toBe(-32600);
      }
    }
  });
});
