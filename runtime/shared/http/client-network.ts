/**
 * The network a client address stands for, as the one key every per-client limit counts on. An
 * IPv4 host is one key however its address is written (`1.2.3.4`, `::ffff:1.2.3.4`,
 * `::ffff:102:304`, with a port or in brackets, or embedded in an IPv6 address that carries it:
 * IPv4-compatible, SIIT, NAT64's well-known prefix, 6to4, Teredo). An IPv6 client is its network
 * of `ipv6Prefix` bits (a /64 by default): one subscriber is handed at least a /64, so keying on
 * the full address would give it 2^64 budgets. Anything that is not an address (a proxy that
 * writes `unknown`) stays its own key, lower-cased and cut to 64 characters.
 */
import { isIP, SocketAddress } from "node:net";

export function clientNetwork(address: string, ipv6Prefix: number): string {
  const text = _bare(address);
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return address.trim().toLowerCase().slice(0, 64);
  const groups = _groups(text);
  const v4 = _embeddedIPv4(groups);
  if (v4 !== undefined) return v4;
  return `${_canonical(_masked(groups, ipv6Prefix))}/${ipv6Prefix}`;
}

// --- Internal helpers ---

/** The address without brackets, a port or an IPv6 zone (`fe80::1%eth0`). */
function _bare(address: string): string {
  let text = address.trim();
  if (text.startsWith("[")) text = text.slice(1, text.indexOf("]") >>> 0);
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.indexOf(":"));
  const zone = text.indexOf("%");
  return zone < 0 ? text : text.slice(0, zone);
}

/** The eight 16-bit groups of an address `isIP` accepted (one `::` at most, a dotted quad last). */
function _groups(text: string): number[] {
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = quad
    ? `${text.slice(0, quad.index)}${((+quad[1]! << 8) | +quad[2]!).toString(16)}:${((+quad[3]! << 8) | +quad[4]!).toString(16)}`
    : text;
  const [head = "", tail] = hex.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 address carries in a well-known place, if it carries one. */
function _embeddedIPv4(g: number[]): string | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const dotted = (hi: number, lo: number) => `${hi >>> 8}.${hi & 255}.${lo >>> 8}.${lo & 255}`;
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT), 64:ff9b::a.b.c.d (NAT64, RFC 6052).
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6]!, g[7]!);
  // ::a.b.c.d (IPv4-compatible, deprecated); :: and ::1 are not IPv4 hosts.
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return dotted(g[6]!, g[7]!);
  // 6to4 (2002:AABB:CCDD::/48): one IPv4 host owns the whole /48.
  if (g[0] === 0x2002) return dotted(g[1]!, g[2]!);
  // Teredo (2001:0::/32): the client's public IPv4 is the last 32 bits, inverted; the flags and
  // port before it are the client's to pick.
  if (g[0] === 0x2001 && g[1] === 0) return dotted(~g[6]! & 0xffff, ~g[7]! & 0xffff);
  return undefined;
}

function _masked(groups: number[], prefix: number): number[] {
  return groups.map((g, i) => {
    const keep = Math.min(16, Math.max(0, prefix - i * 16));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
}

/** RFC 5952 text (node's inet_ntop), so one network is one key however it was written. */
function _canonical(groups: number[]): string {
  return new SocketAddress({ address: groups.map((g) => g.toString(16)).join(":"), family: "ipv6" }).address;
}
