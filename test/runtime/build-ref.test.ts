/**
 * The dependencies' parts that used to be assigned after the app existed: the limits in force
 * (on the build in service, recomputed before a swap) and the listen address publicBaseUrl()
 * falls back to (explicit, bound once).
 */
import { describe, expect, it } from "vitest";
import type { RuntimeConfig } from "../../runtime/config.ts";
import { createListenAddress } from "../../runtime/shared/http/listen-address.ts";
import { publicBaseUrl } from "../../runtime/shared/http/public-base.ts";
import type { Artifacts } from "../../runtime/state/releases/artifacts.ts";
import { createBuildRef } from "../../runtime/state/releases/build-ref.ts";

const buildWith = (hourly: number) =>
  ({ catalog: { limits: { hourly_rate_limit: hourly, daily_standard: 5_000 } } }) as unknown as Artifacts;

describe("the build in service", () => {
  it("carries the limits in force: the catalogue's with the overrides, one object per build, swapped with the build", () => {
    const first = buildWith(200);
    const ref = createBuildRef(first, { daily_standard: 7 });
    expect(ref.limits).toMatchObject({ hourly_rate_limit: 200, daily_standard: 7 });
    expect(ref.limits).toBe(ref.limits);
    ref.current = buildWith(300);
    expect(ref.limits).toMatchObject({ hourly_rate_limit: 300, daily_standard: 7 });
    expect(Object.isFrozen(ref.limits)).toBe(true);
  });

  it("keeps the limits of a build swapped out, for the requests that pinned it", () => {
    const first = buildWith(200);
    const ref = createBuildRef(first, {});
    const before = ref.limits;
    ref.current = buildWith(300);
    expect(ref.limitsOf(first)).toBe(before);
    expect(ref.limitsOf(ref.current)).toBe(ref.limits);
    expect(ref.limitsOf(buildWith(400))).toMatchObject({ hourly_rate_limit: 400 });
  });
});

describe("the listen address", () => {
  it("is the configured address until bound, the bound one after, and is bound once", () => {
    const address = createListenAddress({ host: "::1", port: 0 });
    const config = { publicBaseUrl: undefined } as RuntimeConfig;
    expect(publicBaseUrl({ config, address })).toBe("http://[::1]:0");
    address.bind("http://[::1]:41234");
    expect(publicBaseUrl({ config, address })).toBe("http://[::1]:41234");
    expect(() => address.bind("http://[::1]:1")).toThrow();
    expect(publicBaseUrl({ config: { publicBaseUrl: "https://kb.example" } as RuntimeConfig, address })).toBe("https://kb.example");
  });
});
