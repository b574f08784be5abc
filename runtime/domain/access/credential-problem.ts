/**
 * The warning on a free view served although the presented key was refused: the
 * problem code in a `Credential-Problem` header and the problem in a `credential_problem` field,
 * so an agent notices its key is bad even though the free content it asked for still arrives.
 */

import { prependJsonMember } from "../../shared/http/json-member.ts";
import { CREDENTIAL_PROBLEM_HEADER, type CredentialProblem } from "../../shared/schema/unlock.ts";

export function credentialProblemHeaders(problem: CredentialProblem | null): Record<string, string> {
  return problem ? { [CREDENTIAL_PROBLEM_HEADER]: problem.code } : {};
}

/**
 * The JSON object in `bytes` with `credential_problem` as its first member. Spliced rather than
 * parsed and re-serialised: the prebuilt artifact stays as the build wrote it, and this rare path
 * costs one copy.
 */
export function withCredentialProblem(bytes: Uint8Array, problem: CredentialProblem): Uint8Array {
  return prependJsonMember(bytes, "credential_problem", problem);
}
