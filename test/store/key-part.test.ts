import { describe, expect, it } from "vitest";
import { accountPart, keyPart } from "../../runtime/state/storage/key-part.ts";

// Stored data outlives this code: these are the exact bytes every store wrote before the one
// encoder existed, so a change here would orphan every key already stored.
describe("keyPart", () => {
  it("hex-encodes the UTF-8 bytes, case kept", () => {
    expect(keyPart("Ab:{c}/é")).toBe("41623a7b637d2fc3a9");
    expect(keyPart("")).toBe("");
  });

  it("encodes an account from its lower case", () => {
    expect(accountPart("Acme.Example")).toBe(keyPart("acme.example"));
    expect(accountPart("ÉCOLE")).toBe("c3a9636f6c65");
  });
});
