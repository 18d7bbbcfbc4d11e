/**
 * The matches of a global regular expression, read with the expression
 * itself rather than with the copy `String.prototype.matchAll` makes.
 *
 * `matchAll` iterates over a new regular expression built from the pattern.
 * V8 finds the new one's compiled form in a cache that every full
 * collection ages and two empty, so after a server's idle collections the
 * next call compiles the pattern again; a regular expression kept alive
 * keeps its own compiled form. For a pattern with Unicode property classes
 * that compilation is what the call costs: about 1 ms for `[\p{L}\p{N}]+`,
 * 5-8 ms for o200k's pre-tokenizer, paid again by the first answer after
 * the collections (`bench/question_latency.ts --collect`). Patterns of a few
 * ASCII classes compile in microseconds and may go on using `matchAll`.
 *
 * @module
 */

/** The patterns being iterated (a nested iteration of one gets `matchAll`'s copy). */
const inUse = new Set<RegExp>();

/**
 * The matches of the global `pattern` in `text` from `from` on, in order,
 * as `text.matchAll(pattern)` gives them when the pattern's `lastIndex` is
 * `from`. The pattern's `lastIndex` is left at 0.
 */
export function* matchesOf(
  pattern: RegExp,
  text: string,
  from = 0,
): Generator<RegExpExecArray, void, undefined> {
  if (!pattern.global) throw new TypeError("matchesOf needs a global regular expression");
  if (inUse.has(pattern)) {
    const copy = new RegExp(pattern.source, pattern.flags);
    copy.lastIndex = from;
    return yield* text.matchAll(copy);
  }
  inUse.add(pattern);
  try {
    pattern.lastIndex = from;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      // An empty match moves on by one character (one code point with the u or v flag).
      if (m[0] === "") {
        const i = pattern.lastIndex;
        const wide = (pattern.unicode || pattern.unicodeSets) &&
          (text.codePointAt(i) ?? 0) > 0xffff;
        pattern.lastIndex = i + (wide ? 2 : 1);
      }
      const at = pattern.lastIndex;
      yield m;
      // What the caller ran between two matches may have used the pattern: go on from here.
      pattern.lastIndex = at;
    }
  } finally {
    pattern.lastIndex = 0;
    inUse.delete(pattern);
  }
}
