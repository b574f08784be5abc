/** The checkout price table as pure functions: graduated inaugural prices, flat later cohorts, the 5-key cap. */
import { describe, expect, it } from "vitest";
import { keyPriceMicros, quoteKeys } from "../../runtime/domain/payments/purchases/pricing.ts";
import { formatUsdExact, parseUsdDecimal, toUsdDecimal } from "../../runtime/domain/payments/purchases/usd-decimal.ts";
import type { Cohort } from "../../runtime/shared/schema/catalog.ts";

const COHORTS: Cohort[] = [
  {
    name: "inaugural",
    member_cap: 900,
    price_usd_micros: 19_000_000,
    loyalty_credit_usd_micros: 1_900_000,
    graduated_usd_micros: [19_000_000, 17_000_000, 15_000_000, 13_000_000, 11_000_000],
  },
  { name: "core", member_cap: 3600, price_usd_micros: 49_000_000, loyalty_credit_usd_micros: 4_900_000 },
];

describe("pricing", () => {
  it.each([
    [0, 1, 19],
    [0, 2, 36],
    [0, 3, 51],
    [0, 4, 64],
    [0, 5, 75],
    [1, 2, 32],
    [3, 2, 24],
    [4, 1, 11],
  ])("inaugural: holding %i, buying %i costs $%i", (held, quantity, usd) => {
    expect(quoteKeys(COHORTS, "inaugural", held, quantity, 5).totalMicros).toBe(usd * 1_000_000);
  });
  it("later cohorts are flat per key", () => {
    expect(quoteKeys(COHORTS, "core", 2, 3, 5).perKeyMicros).toEqual([49_000_000, 49_000_000, 49_000_000]);
    expect(keyPriceMicros(COHORTS[0]!, 7)).toBe(11_000_000);
  });
  it("refuses a purchase that would pass the account cap (409 conflict)", () => {
    expect(() => quoteKeys(COHORTS, "inaugural", 4, 2, 5)).toThrow(expect.objectContaining({ code: "conflict", status: 409 }));
  });
});

describe("USD decimal strings", () => {
  it.each([
    ["0.002", 2000],
    ["15.000000", 15_000_000],
    ["19", 19_000_000],
    ["0.0000019", 1],
    ["-1", null],
    ["1e3", null],
    ["", null],
  ])("parse %j → %j", (input, micros) => {
    expect(parseUsdDecimal(input)).toBe(micros);
  });
  it("formats without floats", () => {
    expect(toUsdDecimal(2000)).toBe("0.002000");
    expect(toUsdDecimal(19_000_000)).toBe("19.000000");
    expect(formatUsdExact(2000)).toBe("$0.002");
    expect(formatUsdExact(1_900_000)).toBe("$1.90");
  });
});
