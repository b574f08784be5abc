/**
 * Holds a response that is ready within the event-loop turn its request arrived in until that
 * turn's check phase, so the responses of one turn are written together after its reads.
 *
 * Metered answers already wait for the quota batch, which commits in the check phase; free
 * answers (an anonymous index, a locked node, a 304) were written from inside the read callback,
 * one write between two reads, and cost the server half as much again per request (measured in
 * docs/performance.md, "Figures behind design choices"). A response that already crossed a turn (it waited for the store, a file,
 * the network) goes out at once.
 */
import type { H3 } from "h3";

let turns = 0;
let turnEnd: Promise<void> | null = null;

/** Resolves in the current turn's check phase; one timer per turn however many requests share it. */
function _endOfTurn(): Promise<void> {
  return (turnEnd ??= new Promise((resolve) =>
    setImmediate(() => {
      turnEnd = null;
      turns++;
      resolve();
    }),
  ));
}

export function useCoalescedWrites(app: H3): void {
  // Not an async function: a metered answer, which has already crossed a turn, then pays one
  // `then` and no extra promise of its own.
  app.use((_event, next) => {
    const end = _endOfTurn();
    const turn = turns;
    const hold = <T>(response: T): T | Promise<T> => (turns === turn ? end.then(() => response) : response);
    const result = next();
    return result instanceof Promise ? result.then(hold) : hold(result);
  });
}
