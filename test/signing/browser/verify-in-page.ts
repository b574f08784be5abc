/**
 * What a web page runs to check an answer: the typed client's `verifyAnswer` and
 * `fetchSigningKeys`, bundled by esbuild for the page `browser-verify.e2e.test.ts` serves.
 * `window.fetchAndVerify` asks the service cross-origin, reads the signature headers CORS exposes,
 * and verifies the answer with the expectation given.
 */
import { type AnswerExpectation, fetchSigningKeys, verifyAnswer } from "../../../client/verify-answer.ts";

const SIGNATURE_HEADERS = ["content-digest", "knowledge-identity", "signature-input", "signature"];

async function fetchAndVerify(base: string, path: string, init: RequestInit, expectation: AnswerExpectation) {
  const res = await fetch(`${base}${path}`, init);
  const headers: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const body = new Uint8Array(await res.arrayBuffer());
  const result = await verifyAnswer({ headers, body }, await fetchSigningKeys(base), expectation);
  return { status: res.status, readable: Object.keys(headers), result: JSON.parse(JSON.stringify(result)) };
}

(window as unknown as { fetchAndVerify: typeof fetchAndVerify }).fetchAndVerify = fetchAndVerify;
