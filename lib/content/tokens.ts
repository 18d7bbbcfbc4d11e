/**
 * Token estimates. Budgets in this product are promises to an LLM client, so
 * the estimate leans high: ASCII text costs a token per four characters
 * (common BPE vocabularies average a little more), and every other code
 * point costs one token (CJK ideographs, emoji and accented letters are often
 * one or more tokens each).
 *
 * @module
 */

/** Estimated tokens in `text`. */
export function estimateTokens(text: string): number {
  return Math.ceil(tokenWeight(text));
}

/**
 * The unrounded estimate, so costs of pieces can be added up without
 * rounding each one.
 */
export function tokenWeight(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (c >= 0xdc00 && c <= 0xdfff) continue; // low surrogate: counted with its pair
    else other++;
  }
  return ascii / 4 + other;
}

/**
 * The longest prefix of `text` estimated at no more than `budget` tokens,
 * cut at a line break when one is in the last fifth of the prefix, and never
 * inside a surrogate pair.
 */
export function truncateToTokens(text: string, budget: number): string {
  if (budget <= 0) return "";
  if (estimateTokens(text) <= budget) return text;
  let ascii = 0;
  let other = 0;
  let end = 0;
  for (; end < text.length; end++) {
    const c = text.charCodeAt(end);
    if (c < 0x80) ascii++;
    else if (c >= 0xdc00 && c <= 0xdfff) continue;
    else other++;
    if (Math.ceil(ascii / 4 + other) > budget) break;
  }
  // Step back if the cut would split a surrogate pair.
  if (end > 0 && end < text.length) {
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
  }
  const cut = text.slice(0, end);
  const newline = cut.lastIndexOf("\n");
  return newline >= cut.length * 0.8 ? cut.slice(0, newline) : cut;
}
