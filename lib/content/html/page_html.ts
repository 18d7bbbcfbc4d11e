/**
 * A large page's HTML as a conversion holds it: in a holder the conversion
 * empties once its walk has read it ({@link PageHtml}), and, when decoding
 * gave a string of two bytes a character, narrowed to one byte a character
 * for the walk ({@link narrowed}, undone on what the walk reports by
 * {@link widening}).
 *
 * V8 keeps a string at one byte a character only while every character is
 * Latin-1: one curly quote or arrow in 15.6 MB (WHATWG HTML has 4,847 such
 * characters) makes all of it two bytes a character, 31 MB, and 124 MB for
 * a page of 62 MB, held through the walk. Narrowed, each wider character
 * (and each U+0001, so that none is read twice) is written as U+0001 and
 * six hexadecimal digits in U+0090-U+009F, characters that have no meaning
 * to the tokenizer, no case and are no white space to anyone: a narrowed
 * page tokenizes as the original does, character references and all, and
 * each name, attribute value and text it reports is widened back before the
 * converter sees it. A page of well-formed UTF-8 is narrowed in its bytes,
 * as it is decoded, so it is never held at two bytes a character at all;
 * other encodings and bad bytes are narrowed after decoding.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { HtmlHandler } from "./tokenizer.ts";
import { freeArrays } from "../../runtime/memory.ts";

/**
 * Characters of HTML from which a page counts as large: its conversion
 * collects its walk's garbage before it goes on (see `collectBetweenStages`
 * in runtime/memory.ts), lets go of its {@link PageHtml} once its walk has
 * read it, and a decoded page is narrowed.
 */
export const COLLECT_MIN_CHARS = 2 * 1024 * 1024;

/** Starts a narrowed character: six hexadecimal digits follow (see the module notes). */
const ESCAPE = "\x01";
const ESCAPE_CODE = 1;
const DIGIT_BASE = 0x90;
const ESCAPED_LENGTH = 7;
/** Bytes of an escape in UTF-8: U+0001, then six digits of two bytes each. */
const ESCAPED_BYTES = 13;

/** A UTF-16 unit past Latin-1, or U+0001 (no Unicode flag: a scan without it is several times faster). */
// deno-lint-ignore no-control-regex -- U+0001 is the escape, so a literal one is escaped too
const WIDE = /[^\x00-\xff]|\x01/g;

/**
 * `text` at one byte a character with every wider character (and U+0001)
 * escaped, or undefined when it has no character past Latin-1 (it is then
 * one byte a character already, and left as it is).
 */
export function narrowed(text: string): string | undefined {
  const at: number[] = [];
  const points: number[] = [];
  let wide = false;
  WIDE.lastIndex = 0;
  for (let m = WIDE.exec(text); m !== null; m = WIDE.exec(text)) {
    const i = m.index;
    const point = text.codePointAt(i)!;
    wide ||= point !== ESCAPE_CODE;
    at.push(i);
    points.push(point);
    // A surrogate pair is one character: its second half is not a match of its own.
    if (point > 0xffff) WIDE.lastIndex = i + 2;
  }
  if (!wide) return undefined;
  // The Latin-1 runs written as they are, each wider character as its escape.
  let width = text.length;
  for (const p of points) width += ESCAPED_LENGTH - (p > 0xffff ? 2 : 1);
  const out = Buffer.alloc(width);
  let from = 0;
  let o = 0;
  for (let i = 0; i < at.length; i++) {
    o += out.write(text.slice(from, at[i]), o, "latin1");
    out[o++] = ESCAPE_CODE;
    for (let shift = 20; shift >= 0; shift -= 4) {
      out[o++] = DIGIT_BASE + ((points[i] >> shift) & 15);
    }
    from = at[i] + (points[i] > 0xffff ? 2 : 1);
  }
  out.write(text.slice(from), o, "latin1");
  const narrow = out.toString("latin1");
  // Given back now rather than at the next full collection: the walk would grow beside it.
  freeArrays([out]);
  // V8 keeps the subject of the last successful match (RegExp.lastMatch): the wide text, here.
  /^/.exec("");
  return narrow;
}

/** Bytes of a UTF-8 byte order mark, which decoding drops. */
const BOM = [0xef, 0xbb, 0xbf];

/**
 * Well-formed UTF-8 `bytes` decoded and {@link narrowed} in one go: each
 * character past Latin-1 (and each U+0001) is replaced by its escape in the
 * bytes themselves, so the decoder makes the one-byte string at once. The
 * string {@link narrowed} would give, without the page ever being held at
 * two bytes a character, nor a scan of it by regular expression (on WHATWG
 * HTML, 31 MB and about 100 ms of a one-shot command). `length` is the
 * decoded text's. Undefined when the bytes are not well-formed, where the
 * decoder's replacement characters are left to the decoder and
 * {@link narrowed}; `narrow` is false, the bytes decoded as they are by
 * `decoder`, when no character past Latin-1 was found or the text is
 * shorter than {@link COLLECT_MIN_CHARS} (as {@link PageHtml.decode} narrows
 * a decoded text).
 */
function decodedNarrow(
  bytes: Uint8Array,
  decoder: TextDecoder,
): { text: string; length: number; narrow: boolean } | undefined {
  const n = bytes.length;
  const start = n >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  // Where each character to escape starts, its length in bytes and its code point.
  const at: number[] = [];
  const sizes: number[] = [];
  const points: number[] = [];
  let length = 0;
  let grown = 0;
  let wide = false;
  // Four bytes at a time where they are ASCII and none is U+0001 (most of a page).
  const words = bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, n >> 2)
    : undefined;
  for (let i = start; i < n;) {
    if (words !== undefined && (i & 3) === 0) {
      let k = i >> 2;
      for (; k < words.length; k++) {
        const w = words[k];
        const x = w ^ 0x01010101; // a byte of 1 in w is a byte of 0 in x
        if ((w & 0x80808080) !== 0 || ((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
      }
      length += (k << 2) - i;
      i = k << 2;
      if (i >= n) break;
    }
    const b = bytes[i];
    if (b < 0x80) {
      if (b === ESCAPE_CODE) {
        at.push(i);
        sizes.push(1);
        points.push(b);
        grown += ESCAPED_BYTES - 1;
      }
      i++;
      length++;
      continue;
    }
    let size: number;
    let point: number;
    // The ranges of well-formed sequences (Unicode's table 3-7): no overlong
    // forms, surrogates or code points past U+10FFFF.
    if (b >= 0xc2 && b <= 0xdf) {
      if (i + 1 >= n || (bytes[i + 1] & 0xc0) !== 0x80) return undefined;
      size = 2;
      point = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
    } else if (b >= 0xe0 && b <= 0xef) {
      if (i + 2 >= n) return undefined;
      const b1 = bytes[i + 1];
      const low = b === 0xe0 ? 0xa0 : 0x80;
      const high = b === 0xed ? 0x9f : 0xbf;
      if (b1 < low || b1 > high || (bytes[i + 2] & 0xc0) !== 0x80) return undefined;
      size = 3;
      point = ((b & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (i + 3 >= n) return undefined;
      const b1 = bytes[i + 1];
      const low = b === 0xf0 ? 0x90 : 0x80;
      const high = b === 0xf4 ? 0x8f : 0xbf;
      if (
        b1 < low || b1 > high || (bytes[i + 2] & 0xc0) !== 0x80 ||
        (bytes[i + 3] & 0xc0) !== 0x80
      ) return undefined;
      size = 4;
      point = ((b & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) |
        (bytes[i + 3] & 0x3f);
    } else return undefined;
    if (point > 0xff) {
      at.push(i);
      sizes.push(size);
      points.push(point);
      grown += ESCAPED_BYTES - size;
      wide = true;
    }
    i += size;
    length += size === 4 ? 2 : 1;
  }
  if (!wide || length < COLLECT_MIN_CHARS) {
    return { text: decoder.decode(bytes), length, narrow: false };
  }
  const out = new Uint8Array(n - start + grown);
  let from = start;
  let o = 0;
  for (let k = 0; k < at.length; k++) {
    out.set(bytes.subarray(from, at[k]), o);
    o += at[k] - from;
    out[o++] = ESCAPE_CODE;
    // Each digit, U+0090-U+009F, is two bytes in UTF-8: C2 90-9F.
    for (let shift = 20; shift >= 0; shift -= 4) {
      out[o++] = 0xc2;
      out[o++] = DIGIT_BASE + ((points[k] >> shift) & 15);
    }
    from = at[k] + sizes[k];
  }
  out.set(bytes.subarray(from), o);
  // No byte order mark can lead `out`: one past the first is a character escaped.
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(out);
  freeArrays([out]);
  return { text, length, narrow: true };
}

/** `s` with the characters {@link narrowed} escaped written out again. */
export function widened(s: string): string {
  let i = s.indexOf(ESCAPE);
  if (i < 0) return s;
  let out = "";
  let from = 0;
  while (i >= 0 && i + ESCAPED_LENGTH <= s.length) {
    let point = 0;
    for (let k = 1; k < ESCAPED_LENGTH; k++) {
      point = (point << 4) | (s.charCodeAt(i + k) - DIGIT_BASE);
    }
    out += s.slice(from, i) + String.fromCodePoint(point);
    from = i + ESCAPED_LENGTH;
    i = s.indexOf(ESCAPE, from);
  }
  return out + s.slice(from);
}

/** The attributes of `attrs` widened (`attrs` itself when none holds an escape). */
function widenedAttributes(attrs: Record<string, string>): Record<string, string> {
  let copy: Record<string, string> | undefined;
  for (const name in attrs) {
    const value = attrs[name];
    // (A field of the converter's attribute record may be unset.)
    if (value === undefined || value.indexOf(ESCAPE) < 0) continue;
    copy ??= { ...attrs };
    copy[name] = widened(value);
  }
  return copy ?? attrs;
}

/**
 * `handler` for the walk of a narrowed page: what the walk reports is
 * widened first. (The walk keeps only attributes the converter names, none
 * of which has a character past Latin-1, so attribute names need nothing.)
 */
export function widening(handler: HtmlHandler): HtmlHandler {
  return {
    open: (name, attrs) => handler.open(widened(name), widenedAttributes(attrs)),
    text: (text) => handler.text(widened(text)),
    close: (name) => handler.close(widened(name)),
  };
}

/**
 * A page's HTML, given to `htmlToMarkdown` by a holder it can empty. A
 * large page's source is the largest thing a conversion holds, and nothing
 * after the walk reads it: the conversion lets go of it there (see
 * {@link PageHtml.released}) when the walk wrote some text, so that no
 * reconversion of the whole page can be needed. A caller that passes a
 * holder keeps no other reference to the text, or letting go frees nothing.
 */
export class PageHtml {
  #text: string | undefined;
  /** Characters of HTML (as decoded: before any narrowing). */
  readonly length: number;
  /** Whether the text is {@link narrowed}: what its walk reports needs {@link widening}. */
  readonly narrow: boolean;
  /**
   * Whether narrowing left the page's decoded text, at two bytes a
   * character, as garbage (the text was narrowed after decoding, not as its
   * bytes were decoded).
   */
  readonly leftWide: boolean;

  private constructor(text: string, length: number, narrow: boolean, leftWide = false) {
    this.#text = text;
    this.length = length;
    this.narrow = narrow;
    this.leftWide = leftWide;
  }

  /** A holder of `text` (whose caller drops its own reference). */
  static of(text: string): PageHtml {
    return new PageHtml(text, text.length, false);
  }

  /**
   * Decodes `bytes` into a holder, so no caller's frame holds the text; a
   * large page is {@link narrowed} when it needs to be.
   */
  static decode(bytes: Uint8Array, encoding: string): PageHtml {
    const decoder = new TextDecoder(encoding, { ignoreBOM: false });
    if (decoder.encoding === "utf-8" && bytes.length >= COLLECT_MIN_CHARS) {
      const page = decodedNarrow(bytes, decoder);
      if (page) return new PageHtml(page.text, page.length, page.narrow);
    }
    const text = decoder.decode(bytes);
    const narrow = text.length >= COLLECT_MIN_CHARS ? narrowed(text) : undefined;
    return narrow === undefined
      ? new PageHtml(text, text.length, false)
      : new PageHtml(narrow, text.length, true, true);
  }

  /** The HTML (narrowed if {@link narrow}); a conversion that let go of it needs it no more. */
  get text(): string {
    if (this.#text === undefined) {
      throw new Error("the page's HTML was let go after its conversion");
    }
    return this.#text;
  }

  /** Whether a conversion let go of the text. */
  get released(): boolean {
    return this.#text === undefined;
  }

  /** Lets go of the text. */
  release(): void {
    this.#text = undefined;
  }
}
