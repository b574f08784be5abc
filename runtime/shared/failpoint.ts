/**
 * Crash points for the crash suites: with VKR_FAILPOINT=<name> the process kills itself with
 * SIGKILL the moment it reaches that point, so a test can stop a checkout exactly at a state
 * boundary (after the reservation, inside the charge, between keys) and prove a restart plus a
 * retry, or reconciliation, finishes or undoes it. Unset in production: one string comparison.
 *
 * Points: purchase:reserved, purchase:charging, purchase:before-charge, purchase:after-charge,
 * purchase:charged, purchase:issuing, purchase:issued, card:session-created, trial:key-written;
 * x402 per read: perread:recorded (before /settle), perread:settled (its answer received, not yet
 * recorded), perread:served (recorded, not yet answered).
 */
export function failpoint(config: { failpoint?: string | undefined }, name: string): void {
  if (config.failpoint !== name) return;
  process.stderr.write(`failpoint ${name}: SIGKILL\n`);
  process.kill(process.pid, "SIGKILL");
}
