/**
 * Plain text from small HTML fragments (error pages, snippets). Not the page
 * converter: that is the Markdown pipeline. This one only has to be safe and
 * readable on a few kilobytes.
 *
 * @module
 */

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
};

/** Decodes named (common) and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Readable text of an HTML fragment: scripts, styles and comments dropped,
 * block elements turned into line breaks, tags removed, entities decoded and
 * whitespace tidied. A page with no body text gives its `<title>`.
 */
export function htmlToText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const text = decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<(script|style|template|noscript|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<(br|\/p|\/div|\/h[1-6]|\/li|\/tr|\/pre|\/blockquote)\b[^>]*>/gi, "\n")
      .replace(/<[^>]*>/g, " "),
  );
  const tidy = tidyWhitespace(text);
  if (tidy) return tidy;
  return title ? tidyWhitespace(decodeEntities(title)) : "";
}

/** Collapses runs of spaces, trims lines and drops repeated blank lines. */
export function tidyWhitespace(text: string): string {
  return text
    .replace(/[\t\f\v \u00a0\u2000-\u200b\u3000]+/g, " ")
    .split(/\r\n|[\r\n]/)
    .map((l) => l.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
