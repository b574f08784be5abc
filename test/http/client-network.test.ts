/**
 * The network a client address stands for (runtime/shared/http/client-network.ts): one key per IPv4 host
 * however written, one per IPv6 network of the configured prefix, distinct networks distinct.
 */
import { describe, expect, it } from "vitest";
import { clientNetwork } from "../../runtime/shared/http/client-network.ts";

describe("clientNetwork", () => {
  it("gives one IPv4 host one key however it is written", () => {
    for (const spelling of [
      "192.0.2.33",
      " 192.0.2.33 ",
      "192.0.2.33:8080",
      "::ffff:192.0.2.33",
      "::FFFF:C000:0221",
      "0:0:0:0:0:ffff:c000:221",
      "[::ffff:192.0.2.33]:443",
      "::ffff:0:192.0.2.33",
      "::192.0.2.33",
      "64:ff9b::c000:221",
      "2002:c000:221:5::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdde",
    ])
      expect(clientNetwork(spelling, 64), spelling).toBe("192.0.2.33");
  });

  it("keys IPv6 clients by the configured prefix, in RFC 5952 text", () => {
    expect(clientNetwork("2001:DB8:0:7:abcd::1", 64)).toBe("2001:db8:0:7::/64");
    expect(clientNetwork("[2001:db8:0:7:ffff:ffff:ffff:ffff]:80", 64)).toBe("2001:db8:0:7::/64");
    expect(clientNetwork("2001:db8:0:7:abcd::1%eth0", 64)).toBe("2001:db8:0:7::/64");
    expect(clientNetwork("2001:db8:0:8::1", 64)).toBe("2001:db8:0:8::/64");
    expect(clientNetwork("2001:db8:12:3456::1", 56)).toBe("2001:db8:12:3400::/56");
    expect(clientNetwork("2001:db8:12:3456::1", 48)).toBe("2001:db8:12::/48");
    expect(clientNetwork("2001:db8::1", 128)).toBe("2001:db8::1/128");
    expect(clientNetwork("2001:db8::2", 128)).toBe("2001:db8::2/128");
  });

  it("keeps loopback, unspecified and different hosts apart", () => {
    expect(clientNetwork("::1", 64)).toBe("::/64");
    expect(clientNetwork("127.0.0.1", 64)).toBe("127.0.0.1");
    expect(clientNetwork("::ffff:192.0.2.34", 64)).toBe("192.0.2.34");
  });

  it("leaves what is not an address as its own key, bounded", () => {
    expect(clientNetwork("Unknown", 64)).toBe("unknown");
    expect(clientNetwork("01.2.3.4", 64)).toBe("01.2.3.4");
    expect(clientNetwork("x".repeat(100), 64)).toHaveLength(64);
  });
});
