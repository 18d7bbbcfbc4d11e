/**
 * Decoding text: the charset comes from a byte-order mark, then the
 * Content-Type header, then (for HTML) a `<meta charset>` or
 * `<meta http-equiv="Content-Type">` in the first 4 KiB, then (for XML) the
 * XML declaration, and UTF-8 otherwise. Labels are WHATWG encoding labels,
 * so `latin1` means windows-1252 as browsers do; an unknown label falls
 * back to UTF-8.
 *
 * @module
 */

/** Where the charset was found. */
export type CharsetSource = "bom" | "header" | "meta" | "xml" | "default";

/** The charset of a body. */
export interface Charset {
  /** Canonical encoding name (TextDecoder's `encoding`). */
  encoding: string;
  /** Where it came from. */
  source: CharsetSource;
}

function canonical(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim().replace(/^["']|["']$/g, "")).encoding;
  } catch {
    return undefined;
  }
}

/** The charset parameter of a Content-Type value. */
export function headerCharset(contentType: string | null): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? "");
  return m ? m[2] : undefined;
}

/** Finds the charset of `bytes` served with `contentType`. */
export function detectCharset(contentType: string | null, bytes: Uint8Array): Charset {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { encoding: "utf-8", source: "bom" };
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", source: "bom" };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", source: "bom" };
  const label = headerCharset(contentType);
  const fromHeader = label ? canonical(label) : undefined;
  if (fromHeader) return { encoding: fromHeader, source: "header" };
  const head = new TextDecoder("windows-1252").decode(bytes.subarray(0, 4096));
  const type = (contentType ?? "").toLowerCase();
  if (!type || type.includes("html") || /^\s*<(!doctype|html|head|meta)/i.test(head)) {
    const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
    const found = meta ? canonical(meta[1]) : undefined;
    // A page that says UTF-16 in ASCII-compatible bytes is lying; browsers read UTF-8.
    if (found) {
      return { encoding: found.startsWith("utf-16") ? "utf-8" : found, source: "meta" };
    }
  }
  const xml = /^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  const fromXml = xml ? canonical(xml[1]) : undefined;
  if (fromXml) return { encoding: fromXml, source: "xml" };
  return { encoding: "utf-8", source: "default" };
}

/** Decodes `bytes` with the detected charset (malformed bytes become U+FFFD). */
export function decodeText(bytes: Uint8Array, contentType: string | null): {
  text: string;
  charset: Charset;
} {
  const charset = detectCharset(contentType, bytes);
  const text = new TextDecoder(charset.encoding, { ignoreBOM: false }).decode(bytes);
  return { text, charset };
}
