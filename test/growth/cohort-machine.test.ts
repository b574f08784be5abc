/** The pure cohort state machine: every transition and every reason to stay, on the real catalogue data. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  cohortStatusOf,
  decideProgression,
  isConfidenceMet,
  meanConfidence,
  type ProgressionSnapshot,
  toScoreMicros,
} from "../../runtime/domain/cohorts/cohort-machine.ts";
import type { Cohort } from "../../runtime/shared/schema/catalog.ts";

const COHORTS = (parseYaml(readFileSync("content/_catalog/cohorts.yaml", "utf8")) as { cohorts: Cohort[] }).cohorts;
const snap = (over: Partial<ProgressionSnapshot>): ProgressionSnapshot => ({
  active: "inaugural",
  seatsClaimed: 0,
  outcomeSubmissions: 0,
  outcomeConfidenceMicros: 0,
  ...over,
});
/** n submissions with mean `mean` (in micro-units). */
const outcomes = (n: number, meanMicros: number) => ({ outcomeSubmissions: n, outcomeConfidenceMicros: n * meanMicros });

describe("decideProgression", () => {
  it("walks inaugural → core → growth → scale → cap with each cohort's loyalty credit from the data file", () => {
    const steps = COHORTS.slice(0, -1).map((c) =>
      decideProgression(COHORTS, snap({ active: c.name, seatsClaimed: c.member_cap, ...outcomes(10, 900_000) })),
    );
    expect(steps).toEqual([
      { kind: "advance", from: "inaugural", to: "core", loyaltyCreditUsdMicros: 1_900_000 },
      { kind: "advance", from: "core", to: "growth", loyaltyCreditUsdMicros: 4_900_000 },
      { kind: "advance", from: "growth", to: "scale", loyaltyCreditUsdMicros: 9_900_000 },
      { kind: "advance", from: "scale", to: "cap", loyaltyCreditUsdMicros: 14_900_000 },
    ]);
    expect(COHORTS.map((c) => c.member_cap)).toEqual([900, 3600, 14400, 57600, 230400]);
  });

  it("stays while a seat is open, whatever the confidence", () => {
    expect(decideProgression(COHORTS, snap({ seatsClaimed: 899, ...outcomes(5, 1_000_000) }))).toEqual({
      kind: "stay",
      active: "inaugural",
      reason: "seats_open",
    });
  });

  it("stays when full but the mean confidence is exactly 0.8 (must exceed), below it, or there are no submissions", () => {
    for (const o of [outcomes(10, 800_000), outcomes(3, 500_000), outcomes(0, 0)]) {
      expect(decideProgression(COHORTS, snap({ seatsClaimed: 900, ...o }))).toEqual({
        kind: "stay",
        active: "inaugural",
        reason: "confidence_not_met",
      });
    }
    expect(decideProgression(COHORTS, snap({ seatsClaimed: 900, outcomeSubmissions: 10, outcomeConfidenceMicros: 8_000_001 })).kind).toBe(
      "advance",
    );
  });

  it("advances from an over-full cohort (seats beyond the cap while confidence lagged)", () => {
    expect(decideProgression(COHORTS, snap({ seatsClaimed: 950, ...outcomes(2, 850_000) })).kind).toBe("advance");
  });

  it("never leaves the last tier", () => {
    expect(decideProgression(COHORTS, snap({ active: "cap", seatsClaimed: 1e9, ...outcomes(1, 1_000_000) }))).toEqual({
      kind: "stay",
      active: "cap",
      reason: "last_tier",
    });
  });

  it("rejects a cohort the catalogue does not have", () => {
    expect(() => decideProgression(COHORTS.slice(1), snap({}))).toThrow(/inaugural/);
  });

  it("uses the catalogue it is given: caps come from data, not code", () => {
    const small = COHORTS.map((c, i) => ({ ...c, member_cap: i + 2 }));
    expect(decideProgression(small, snap({ seatsClaimed: 2, ...outcomes(1, 900_000) })).kind).toBe("advance");
    expect(decideProgression(small, snap({ active: "core", seatsClaimed: 2, ...outcomes(1, 900_000) })).kind).toBe("stay");
  });
});

describe("helpers", () => {
  it("compare confidence exactly in integers", () => {
    expect(isConfidenceMet(3, 2_400_001)).toBe(true);
    expect(isConfidenceMet(3, 2_400_000)).toBe(false);
    expect(toScoreMicros(0.8000004)).toBe(800_000);
    expect(toScoreMicros(1)).toBe(1_000_000);
    expect(meanConfidence(0, 0)).toBeNull();
    expect(meanConfidence(3, 2_500_000)).toBe(0.833333);
  });
  it("reads each tier's status from the active one", () => {
    expect(COHORTS.map((c) => cohortStatusOf(COHORTS, "core", c.name, c.name === "core" ? 3600 : 0))).toEqual([
      "closed",
      "full",
      "upcoming",
      "upcoming",
      "upcoming",
    ]);
    expect(cohortStatusOf(COHORTS, "inaugural", "inaugural", 10)).toBe("open");
  });
});
