/**
 * A server process's own CPU time, read from Linux `/proc`, and the median of a bench's rounds:
 * what every bench script divides by the requests it sent, so its ratios measure the server's
 * work whatever the load generator and the machine's other tenants do to throughput.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process in clock ticks; 0 where `/proc` is unavailable. */
export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
