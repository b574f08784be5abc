/**
 * `Content-Encoding: deflate` for an answer made of a small per-request head, a large cached
 * middle and a small tail (an MCP result: `{"jsonrpc":"2.0","id":…,"result":` + artifact + `}`),
 * without compressing anything per request.
 *
 * The middle is compressed once (raw deflate ending in a sync flush, so it ends on a byte
 * boundary without a final block) and kept with its Adler-32. Each answer is then spliced by hand:
 * the zlib header, the head as a stored block, the cached middle, the tail as the final stored
 * block, and the Adler-32 of the whole, combined from the parts' (RFC 1950/1951). Compressing per
 * request would cost far more CPU than it saves: a zlib stream per call allocates its state.
 */
import { constants, deflateRawSync } from "node:zlib";
import { parseQualityList } from "./quality-list.ts";

/** A middle part compressed once, ready to splice. */
export interface DeflatedPart {
  readonly data: Uint8Array;
  readonly adler: number;
  readonly length: number;
}

const ADLER_BASE = 65521;
/** zlib header: deflate, 32 KiB window, default level (RFC 1950 2.2; 0x789c % 31 === 0). */
const ZLIB_HEADER = Uint8Array.of(0x78, 0x9c);

export function deflatePart(bytes: Uint8Array): DeflatedPart {
  const data = deflateRawSync(bytes, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
  return { data, adler: adler32(bytes), length: bytes.byteLength };
}

/** The zlib stream of `head + middle + tail`, as parts to write in order. */
export function spliceDeflate(head: Uint8Array, middle: DeflatedPart, tail: Uint8Array): Uint8Array[] {
  let adler = _combine(adler32(head), middle.adler, middle.length);
  adler = _combine(adler, adler32(tail), tail.byteLength);
  const trailer = new Uint8Array(4);
  new DataView(trailer.buffer).setUint32(0, adler >>> 0);
  return [ZLIB_HEADER, ..._stored(head, false), middle.data, ..._stored(tail, true), trailer];
}

/** True when the request's Accept-Encoding admits deflate (q > 0). */
export function acceptsDeflate(header: string | null): boolean {
  if (!header) return false;
  const deflate = parseQualityList(header).find((item) => item.value === "deflate");
  return deflate !== undefined && deflate.q > 0;
}

export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  // 5552 is the longest run whose sums cannot overflow before the modulo (zlib's NMAX).
  for (let i = 0; i < bytes.length; ) {
    const end = Math.min(i + 5552, bytes.length);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= ADLER_BASE;
    b %= ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

// --- Internal helpers ---

/** Longest stored block (its length field has 16 bits). */
const STORED_MAX = 65_535;

/**
 * `data` as stored blocks (BTYPE 00; the stream is byte-aligned here), each header then its
 * bytes; `final` marks the last block. A head can outgrow one block: a JSON-RPC id is the
 * client's string, as long as the body limit allows.
 */
function _stored(data: Uint8Array, final: boolean): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let offset = 0;
  do {
    const chunk = data.subarray(offset, offset + STORED_MAX);
    offset += chunk.byteLength;
    const last = final && offset >= data.byteLength;
    const len = chunk.byteLength;
    parts.push(Uint8Array.of(last ? 1 : 0, len & 0xff, len >>> 8, ~len & 0xff, (~len >>> 8) & 0xff), chunk);
  } while (offset < data.byteLength);
  return parts;
}

/** zlib's adler32_combine: the Adler-32 of A + B from A's, B's and B's length. */
function _combine(adler1: number, adler2: number, len2: number): number {
  const rem = len2 % ADLER_BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (adler2 & 0xffff) + ADLER_BASE - 1;
  sum2 += ((adler1 >>> 16) & 0xffff) + ((adler2 >>> 16) & 0xffff) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= ADLER_BASE << 1) sum2 -= ADLER_BASE << 1;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}
