/** The spliced deflate stream inflates (with Node's zlib, as clients do) to exactly head + middle + tail. */
import { randomBytes } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptsDeflate, adler32, deflatePart, spliceDeflate } from "../../runtime/shared/http/deflate-splice.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const join = (parts: Uint8Array[]) => Buffer.concat(parts);

describe("deflate splicing", () => {
  it("adler32 agrees with zlib's trailer", () => {
    for (const size of [0, 1, 5551, 5552, 5553, 100_000]) {
      const bytes = randomBytes(size);
      const trailer = deflateSync(bytes).subarray(-4);
      expect(adler32(bytes)).toBe(trailer.readUInt32BE(0));
    }
    // All 0xff is the worst case for overflow between modulos.
    const ff = new Uint8Array(300_000).fill(0xff);
    expect(adler32(ff)).toBe(deflateSync(ff).subarray(-4).readUInt32BE(0));
  });

  it("inflates to head + middle + tail for any head, middle and tail", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 70_000 }),
        fc.string({ maxLength: 50 }),
        (head, middle, tail) => {
          const spliced = join(spliceDeflate(utf8(head), deflatePart(middle), utf8(tail)));
          expect(inflateSync(spliced).equals(join([utf8(head), middle, utf8(tail)]))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("one compressed middle serves every head (the JSON-RPC id) and is smaller than the plain answer", () => {
    const middle = utf8(
      JSON.stringify({ content: [{ type: "text", text: "x".repeat(20_000) }], structuredContent: { a: "y".repeat(20_000) } }),
    );
    const part = deflatePart(middle);
    for (const id of [1, 42, 'req-ü-"quoted"', 9_007_199_254_740_991]) {
      const head = utf8(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
      const body = join(spliceDeflate(head, part, utf8("}")));
      expect(JSON.parse(inflateSync(body).toString("utf8")).id).toBe(id);
      expect(body.byteLength).toBeLessThan(middle.byteLength / 10);
    }
  });

  it("splits a head or tail longer than one stored block (a client's id can be ~64 KiB)", () => {
    const part = deflatePart(utf8("middle"));
    for (const size of [65_535, 65_536, 140_000]) {
      const head = new Uint8Array(size).fill(0x61);
      const tail = new Uint8Array(size).fill(0x62);
      const spliced = join(spliceDeflate(head, part, tail));
      expect(inflateSync(spliced).equals(join([head, utf8("middle"), tail]))).toBe(true);
    }
    expect(inflateSync(join(spliceDeflate(new Uint8Array(0), part, new Uint8Array(0)))).toString()).toBe("middle");
  });

  it("reads Accept-Encoding", () => {
    expect(acceptsDeflate("gzip, deflate")).toBe(true);
    expect(acceptsDeflate("gzip, deflate, br")).toBe(true);
    expect(acceptsDeflate("Deflate;q=0.5")).toBe(true);
    expect(acceptsDeflate("gzip, deflate ;q=0.5")).toBe(true); // OWS before ";" (RFC 9110 weight)
    expect(acceptsDeflate("deflate;q=0")).toBe(false);
    expect(acceptsDeflate("gzip")).toBe(false);
    expect(acceptsDeflate("x-deflate")).toBe(false);
    expect(acceptsDeflate(null)).toBe(false);
    expect(acceptsDeflate("")).toBe(false);
  });
});
