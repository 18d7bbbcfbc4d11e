/**
 * Trusted values: the only strings the frontmatter builder accepts.
 *
 * Invariant 1 of the design says frontmatter holds only values the server
 * computed or validated by shape. A page-derived string must never reach it.
 * This module makes that a type error and a runtime error: frontmatter takes
 * {@link Trusted} (a sealed class whose constructor needs a module-private
 * token), numbers and booleans, never a bare `string`. Each constructor below
 * validates one shape (URL, ISO date, DOI, closed enum, server-authored
 * template text, an echo of the caller's own request) and refuses anything
 * else, and every Trusted value is a single line with no control characters.
 *
 * @module
 */

const SEAL: unique symbol = Symbol("parkour.trusted");

/** Longest Trusted value; longer input is refused (or shortened for echoes). */
export const MAX_TRUSTED_LENGTH = 4096;

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// deno-lint-ignore no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** Thrown when a value does not pass a Trusted constructor's shape check. */
export class UntrustedValueError extends TypeError {
  /** Creates the error with a message naming the failed check. */
  constructor(message: string) {
    super(message);
    this.name = "UntrustedValueError";
  }
}

/**
 * A string the server computed or validated. Create one with the functions
 * of {@link trusted}; the constructor cannot be called from outside this
 * module.
 */
export class Trusted {
  readonly #value: string;

  /** @internal Use the {@link trusted} constructors instead. */
  constructor(seal: typeof SEAL, value: string) {
    if (seal !== SEAL) {
      throw new UntrustedValueError(
        "Trusted values are created only through the trusted.* constructors",
      );
    }
    if (CONTROL.test(value)) {
      throw new UntrustedValueError(
        "a trusted value cannot contain control characters or line breaks",
      );
    }
    if (!value.isWellFormed()) {
      throw new UntrustedValueError(
        "a trusted value cannot contain unpaired surrogates",
      );
    }
    if (value.length > MAX_TRUSTED_LENGTH) {
      throw new UntrustedValueError(
        `a trusted value is limited to ${MAX_TRUSTED_LENGTH} characters`,
      );
    }
    this.#value = value;
  }

  /** The validated text. */
  toString(): string {
    return this.#value;
  }

  /** Serialises as the plain string (for JSON output formats). */
  toJSON(): string {
    return this.#value;
  }
}

/** Whether `value` is a {@link Trusted} made by this module. */
export function isTrusted(value: unknown): value is Trusted {
  return value instanceof Trusted;
}

function make(value: string): Trusted {
  return new Trusted(SEAL, value);
}

const ISO_DATE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
// CrossRef's recommended pattern for modern DOIs.
const DOI = /^10\.\d{4,9}\/[-._;()/:A-Za-z0-9<>[\]]+$/;

/** A value that may be interpolated into {@link trusted.text}. */
export type TrustedPart = Trusted | number | boolean | bigint;

function partToString(part: unknown): string {
  if (part instanceof Trusted) return part.toString();
  if (typeof part === "number") {
    if (!Number.isFinite(part)) {
      throw new UntrustedValueError("numbers in trusted text must be finite");
    }
    return String(part);
  }
  if (typeof part === "boolean" || typeof part === "bigint") {
    return String(part);
  }
  throw new UntrustedValueError(
    "trusted.text only interpolates Trusted values, numbers and booleans; " +
      "wrap request echoes with trusted.echo and keep page text in the fence",
  );
}

/** The longest URL a frontmatter value may be (the HTTP API's own bound on `url`). */
export const MAX_URL_LENGTH = 8192;

// RFC 3986: unreserved, reserved and the percent sign.
const URI_CHAR = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;

/**
 * A WHATWG-normalised href (ASCII) with every character RFC 3986 does not
 * allow percent-encoded: the ones WHATWG leaves as they came (`|`, `^`, `{`,
 * `}`, `\\`, a `%` not followed by two hex digits, a second `#`), so the
 * value is a plain URI on one line.
 */
export function strictHref(href: string): string {
  let out = "";
  let fragment = false;
  for (let i = 0; i < href.length; i++) {
    const ch = href[i];
    if (ch === "%") {
      out += /^[0-9A-Fa-f]{2}$/.test(href.slice(i + 1, i + 3)) ? ch : "%25";
    } else if (ch === "#") {
      out += fragment ? "%23" : ch;
      fragment = true;
    } else if (URI_CHAR.test(ch)) {
      out += ch;
    } else {
      out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
    }
  }
  return out;
}

/** The validated shapes a {@link Trusted} value can be built from. */
export interface TrustedConstructors {
  /** An http(s) URL without credentials, normalised. */
  url(value: string | URL): Trusted;
  /** An ISO 8601 date or date-time naming a real calendar day. */
  isoDate(value: string | Date): Trusted;
  /** A DOI (`10.<registrant>/<suffix>`). */
  doi(value: string): Trusted;
  /** A member of a closed set. */
  oneOf<T extends string>(allowed: readonly T[], value: string): Trusted;
  /** An identifier matching an anchored pattern. */
  matching(value: string, pattern: RegExp): Trusted;
  /** Server-authored template text with trusted interpolations. */
  text(strings: TemplateStringsArray, ...parts: TrustedPart[]): Trusted;
  /** The caller's own request text, flattened and capped. */
  echo(value: string, max?: number): Trusted;
}

/** Constructors for {@link Trusted} values, one per validated shape. */
export const trusted: TrustedConstructors = {
  /**
   * An http(s) URL, normalised by the WHATWG URL parser and then
   * percent-encoded strictly (see {@link strictHref}): ASCII only, no
   * spaces, quotes, controls or line breaks, whatever path a page chose.
   * Other schemes, credentials in the URL, unparseable input and URLs over
   * {@link MAX_URL_LENGTH} characters are refused.
   */
  url(value: string | URL): Trusted {
    let url: URL;
    try {
      url = typeof value === "string" ? new URL(value) : new URL(value.href);
    } catch {
      throw new UntrustedValueError("not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UntrustedValueError(`URL scheme ${url.protocol} not allowed`);
    }
    if (url.username || url.password) {
      throw new UntrustedValueError("URLs with credentials are not allowed");
    }
    const href = strictHref(url.href);
    if (href.length > MAX_URL_LENGTH) {
      throw new UntrustedValueError(
        `URLs longer than ${MAX_URL_LENGTH} characters are not allowed`,
      );
    }
    return make(href);
  },

  /** An ISO 8601 date or date-time that names a real calendar day. */
  isoDate(value: string | Date): Trusted {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) {
        throw new UntrustedValueError("invalid date");
      }
      return make(value.toISOString());
    }
    if (!ISO_DATE.test(value)) {
      throw new UntrustedValueError("not an ISO 8601 date");
    }
    const [y, m, d] = value.slice(0, 10).split("-").map(Number);
    const day = new Date(Date.UTC(y, m - 1, d));
    if (
      day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 ||
      day.getUTCDate() !== d
    ) {
      throw new UntrustedValueError("not a calendar date");
    }
    return make(value);
  },

  /** A DOI matching CrossRef's pattern (`10.<registrant>/<suffix>`). */
  doi(value: string): Trusted {
    if (!DOI.test(value) || value.length > 300) {
      throw new UntrustedValueError("not a DOI");
    }
    return make(value);
  },

  /** A member of a closed set of values known to the server. */
  oneOf<T extends string>(allowed: readonly T[], value: string): Trusted {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new UntrustedValueError(
        `value not in the allowed set (${allowed.join(", ")})`,
      );
    }
    return make(value);
  },

  /**
   * An identifier checked against an anchored pattern (`^...$`), such as an
   * arXiv id or a commit SHA. Patterns without both anchors are refused.
   */
  matching(value: string, pattern: RegExp): Trusted {
    const src = pattern.source;
    if (!src.startsWith("^") || !src.endsWith("$") || pattern.flags.includes("m")) {
      throw new UntrustedValueError(
        "trusted.matching needs a pattern anchored with ^ and $ (no m flag)",
      );
    }
    if (value.length > 300 || !pattern.test(value)) {
      throw new UntrustedValueError("value does not match the expected shape");
    }
    return make(value);
  },

  /**
   * Server-authored text as a tagged template. The literal parts are written
   * by us; interpolations must be Trusted values, numbers or booleans, so a
   * page-derived string cannot slip in:
   *
   * ```ts
   * trusted.text`Found ${count} sections; use section= to read one`;
   * ```
   */
  text(strings: TemplateStringsArray, ...parts: TrustedPart[]): Trusted {
    let out = strings[0];
    for (let i = 0; i < parts.length; i++) {
      out += partToString(parts[i]) + strings[i + 1];
    }
    return make(out);
  },

  /**
   * An echo of the caller's own request (a search query, a section name the
   * caller asked for). Not page text, but not validated by shape either, so
   * it is flattened to one line, stripped of control characters and capped
   * at `max` characters.
   */
  echo(value: string, max = 200): Trusted {
    const flat = value.toWellFormed().replace(CONTROL_ALL, " ").replace(/\s+/g, " ").trim();
    const chars = Array.from(flat);
    if (chars.length <= max) return make(flat);
    return make(chars.slice(0, Math.max(1, max - 1)).join("") + "…");
  },
};

/** A scalar the frontmatter accepts: a {@link Trusted} string, a number or a boolean. */
export type FrontmatterScalar = Trusted | number | boolean;
/** A value the frontmatter accepts; `null` and `undefined` are skipped. */
export type FrontmatterValue =
  | FrontmatterScalar
  | readonly FrontmatterScalar[]
  | null
  | undefined;
