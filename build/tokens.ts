/**
 * Token counts for `layer_tokens` / `token_estimate`: a real BPE tokenizer (o200k_base, the
 * encoding of current OpenAI models; pure JS), so an agent can budget before it fetches a layer.
 */
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/** @example countTokens("Hello world") // 2 */
export function countTokens(text: string): number {
  return text ? countO200k(text) : 0;
}
