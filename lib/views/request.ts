/**
 * The one request model of the page views. A page request (`url`, one view:
 * the page, `section`, `search`, `slices` or `query`, and the settings that
 * shape it) is one zod schema; the MCP tools' input schemas, the REST query
 * parameters, the CLI flags of `fetch` and `sections`, the library's `Page`
 * and `/openapi.json` all come from it. Messages name parameters through
 * {@link param} markers, so each face shows its own spelling (`max_tokens`
 * for MCP and REST, `--max-tokens` on the command line).
 *
 * @module
 */
import { distance } from "fastest-levenshtein";
import { z } from "zod";
import {
  type Face,
  FACES,
  hasParam,
  param,
  paramName,
  renderParams,
  RequestError,
} from "./errors.ts";
import { QUERY_DEFAULT_TOKENS } from "../content/question/extract.ts";
import {
  DEFAULT_PAGE_CEILING_MB,
  DEFAULT_PAGE_MAX_MB,
  megabytes,
  mib,
  MIN_PAGE_MB,
  PAGE_CEILING_FLAG,
  PAGE_CEILING_VARIABLE,
  PAGE_LIMIT_VARIABLE,
  pageCeilingBytes,
  RESPONSE_TOKEN_CAP,
} from "../config.ts";
import { type Message, note, p } from "../hint.ts";
import { OUTLINE_WINDOW } from "../content/document/views.ts";

export { OUTLINE_WINDOW, QUERY_DEFAULT_TOKENS };

export { type Face, FACES, param, paramName, renderParams };

/** Default budget of a view, in tokens (the page, sections, search and slices). */
export const DEFAULT_MAX_TOKENS = 5000;
/** The smallest budget a request may ask for. */
export const MIN_MAX_TOKENS = 50;
/** The largest budget a request may ask for: the response cap, which no answer exceeds. */
export const MAX_MAX_TOKENS: number = RESPONSE_TOKEN_CAP;
/** Longest section name a request may give (longer names cannot be headings worth finding). */
export const MAX_SECTION_NAME = 500;
/** Most sections one request may name. */
export const MAX_SECTIONS = 50;
/** Longest `search` or `query`. */
export const MAX_QUERY_CHARS = 2000;
/** Most slice indexes per request. */
export const MAX_SLICES = 100;
/** Most browser actions per request. */
export const MAX_ACTIONS = 20;
/** Default cap on the interactive-elements list of a rendered page. */
export const DEFAULT_MAX_ELEMENTS = 25;

export { RequestError };

function show(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function wholeNumber(key: string, min: number, max: number) {
  return z.number({
    error: (issue) =>
      `${param(key)} must be a whole number from ${min} to ${max} (got ${show(issue.input)})`,
  }).int().min(min).max(max);
}

function text(key: string, max: number) {
  return z.string({ error: () => `${param(key)} must be text` })
    .max(max, { error: () => `${param(key)} is limited to ${max} characters` });
}

function flag(key: string) {
  return z.boolean({ error: (i) => `${param(key)} must be true or false (got ${show(i.input)})` });
}

/** Bounds of a whole-number parameter, for the faces that parse text. */
export interface Range {
  /** Smallest value. */
  min: number;
  /** Largest value. */
  max: number;
}

/** Whole-number bounds by parameter. */
export const RANGES: Record<string, Range> = {
  max_tokens: { min: MIN_MAX_TOKENS, max: MAX_MAX_TOKENS },
  slices: { min: -1_000_000, max: 1_000_000 },
  slice: { min: -1_000_000, max: 1_000_000 },
  max_elements: { min: 0, max: 200 },
};

const sliceIndex = wholeNumber("slices", RANGES.slices.min, RANGES.slices.max);
const sectionName = text("section", MAX_SECTION_NAME);

const actionSchema = z.strictObject({
  type: z.enum(["click", "fill", "select", "wait"], {
    error: (i) => `each action's type must be click, fill, select or wait (got ${show(i.input)})`,
  }),
  selector: z.string().max(1000).describe("CSS selector"),
  value: z.string().max(10_000).optional().describe("text to fill, option to select"),
});

/** One browser action. */
export type Action = z.infer<typeof actionSchema>;

const url = z.string({ error: () => `${param("url")} is required: the page's http(s) address` })
  .min(1, { error: () => `${param("url")} is required: the page's http(s) address` })
  .max(8192, { error: () => `${param("url")} is limited to 8192 characters` });

const fullPage = flag("full_page").optional().describe(
  "keep menus, sidebars and comments: skip main-content extraction",
);
/** This server's ceiling of `max_page_mb`, in MiB (read when a request is checked). */
function ceilingMb(): string {
  return mib(pageCeilingBytes());
}

/**
 * `max_page_mb`: the largest page a call reads, in MiB, from
 * {@link MIN_PAGE_MB} to the server's ceiling (checked at each request, so
 * the ceiling set for this process holds). Without it, the server's default.
 */
const maxPageMb = z.number({
  error: (i) =>
    `${param("max_page_mb")} must be a number of MiB from ${MIN_PAGE_MB} to ${ceilingMb()} (got ${
      typeof i.input === "number"
        ? String(i.input)
        : typeof i.input === "string"
        ? `the text ${JSON.stringify(show(i.input))}`
        : show(i.input)
    })`,
}).min(MIN_PAGE_MB).refine((mb) => mb * 1024 * 1024 <= pageCeilingBytes(), {
  error: (i) =>
    `${param("max_page_mb")} ${
      show(i.input)
    } is over this server's ceiling of ${ceilingMb()} MiB; ` +
    `ask for at most ${ceilingMb()}, or have the server's operator raise ${PAGE_CEILING_VARIABLE} (MiB) or ${PAGE_CEILING_FLAG}`,
}).optional().describe(
  `largest page to read, in MiB (server default ${DEFAULT_PAGE_MAX_MB}; up to its ceiling, ${DEFAULT_PAGE_CEILING_MB} unless set)`,
);

const requiresJs = flag("requires_js").optional().describe(
  "render in a headless browser first (seconds; for pages built by JavaScript)",
);

/** The fields of a page request, as a zod shape (one place for every face). */
export const PAGE_FIELDS = {
  url: url.describe("http(s) URL; a #fragment selects that section"),
  section: z.union([sectionName, z.array(sectionName).max(MAX_SECTIONS)], {
    error: (i) =>
      i.code === "invalid_union"
        ? `${
          param("section")
        } takes a heading name or a list of at most ${MAX_SECTIONS}, each at most ${MAX_SECTION_NAME} characters`
        : undefined,
  }).optional().describe("heading text, slug or #id (as the outline lists)"),
  auto_expand: flag("auto_expand").optional().describe(
    "with section: include its subsections",
  ),
  search: text("search", MAX_QUERY_CHARS).optional().describe(
    "keyword query over the page's slices",
  ),
  slices: z.union([sliceIndex, z.array(sliceIndex).max(MAX_SLICES)], {
    error: (i) =>
      i.code === "invalid_union"
        ? `${param("slices")} takes slice indexes (whole numbers), at most ${MAX_SLICES}`
        : undefined,
  }).optional().describe("slice indexes (from search results)"),
  query: text("query", MAX_QUERY_CHARS).optional().describe(
    "a question: only the sections that answer it",
  ),
  max_tokens: wholeNumber("max_tokens", MIN_MAX_TOKENS, MAX_MAX_TOKENS).optional().describe(
    `token budget of the answer (default ${DEFAULT_MAX_TOKENS}; with query ${QUERY_DEFAULT_TOKENS})`,
  ),
  full_page: fullPage,
  requires_js: requiresJs,
  actions: z.array(actionSchema).max(MAX_ACTIONS).optional().describe(
    "clicks, fills, selects, waits to run before reading (implies requires_js)",
  ),
  max_elements: wholeNumber("max_elements", 0, 200).optional().describe(
    `with requires_js: interactive elements to list (default ${DEFAULT_MAX_ELEMENTS}; 0 none)`,
  ),
  allow_offsite: flag("allow_offsite").optional().describe(
    "with requires_js: let the page go to other hosts",
  ),
  max_page_mb: maxPageMb,
};

/** The fields of an outline request. */
export const OUTLINE_FIELDS = {
  url: url.describe("http(s) URL of the page"),
  slice: wholeNumber("slice", RANGES.slice.min, RANGES.slice.max).optional().describe(
    `window of ${OUTLINE_WINDOW} sections: 0 for the first, 1 for the next, -1 for the last`,
  ),
  full_page: fullPage,
  max_page_mb: maxPageMb,
};

/** Names of the page-request fields. */
export const PAGE_KEYS = Object.keys(PAGE_FIELDS) as (keyof typeof PAGE_FIELDS)[];
/** Names of the outline-request fields. */
export const OUTLINE_KEYS = Object.keys(OUTLINE_FIELDS) as (keyof typeof OUTLINE_FIELDS)[];

/** The valid name closest to `name`, when one is close enough to be a slip. */
export function closestName(name: string, valid: readonly string[]): string | undefined {
  const wanted = name.toLowerCase().replace(/^-+/, "").replaceAll("-", "_");
  let best: string | undefined;
  let bestScore = Infinity;
  for (const v of valid) {
    const plain = v.replace(/^-+/, "").replaceAll("-", "_");
    // Levenshtein distance, from a maintained package (@std/text's closestString is on JSR).
    let d = distance(wanted, plain);
    if (plain.startsWith(wanted) || wanted.startsWith(plain)) d = Math.min(d, 1);
    if (d < bestScore) [best, bestScore] = [v, d];
  }
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return bestScore <= limit ? best : undefined;
}

/** The message for an unknown parameter, with the closest valid one when there is one. */
export function unknownParameter(name: string, valid: readonly string[], face: Face): string {
  const shown = show(name);
  const close = closestName(name, valid);
  const kind = face === "cli" ? "flag" : "parameter";
  const list = valid.map((v) => paramName(face, v)).join(", ");
  return close
    ? `unknown ${kind} '${shown}'; did you mean '${paramName(face, close)}'?`
    : `unknown ${kind} '${shown}'; valid ${kind}s: ${list}`;
}

/**
 * A strict object schema over `fields`: unknown keys are refused with the
 * closest valid name (MCP and library spelling; the CLI and REST check names
 * before parsing, in their own spelling).
 */
export function strictSchema<S extends z.ZodRawShape>(fields: S): z.ZodObject<S, z.core.$strict> {
  const keys = Object.keys(fields);
  return z.strictObject(fields, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      return issue.keys.map((k: string) => unknownParameter(k, keys, "mcp")).join("; ");
    },
  });
}

/** The schema of a page request. */
export const pageRequestSchema = strictSchema(PAGE_FIELDS);
/** The schema of an outline request. */
export const outlineRequestSchema = strictSchema(OUTLINE_FIELDS);

/** A page request, as validated. */
export type PageRequest = z.infer<typeof pageRequestSchema>;
/** An outline request, as validated. */
export type OutlineRequest = z.infer<typeof outlineRequestSchema>;

/** The message of a failed parse: each issue's own words, parameter markers kept. */
export function issuesMessage(error: z.ZodError): string {
  const seen = new Set<string>();
  for (const issue of error.issues) {
    let message = issue.message;
    if (!hasParam(message) && issue.path.length > 0) {
      message = `${param(String(issue.path[0]))}: ${message}`;
    }
    seen.add(message);
  }
  return [...seen].join("; ");
}

/** Parses `input` with `schema`; failures become a {@link RequestError}. */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) {
    const first = result.error.issues[0];
    const kind = first?.code === "unrecognized_keys"
      ? "unknown_parameter"
      : first?.path[0] === "max_tokens"
      ? "bad_max_tokens"
      : "bad_request";
    throw new RequestError(issuesMessage(result.error), kind);
  }
  return result.data;
}

// ---------------------------------------------------------------------------
// Text forms (REST query strings and CLI flags)

/** How a field is written as text. */
export type TextKind = "string" | "strings" | "int" | "ints" | "number" | "boolean" | "json";

/** The text form of each field that the REST API and CLI parse. */
export const TEXT_KINDS: Record<string, TextKind> = {
  url: "string",
  section: "strings",
  auto_expand: "boolean",
  search: "string",
  slices: "ints",
  query: "string",
  max_tokens: "int",
  full_page: "boolean",
  requires_js: "boolean",
  actions: "json",
  max_elements: "int",
  allow_offsite: "boolean",
  slice: "int",
  max_page_mb: "number",
  format: "string",
  frontmatter: "boolean",
};

/**
 * Turns text values (query-string or flag values, all strings) into the
 * typed input the schema validates. `values` holds every value given for a
 * key; a key that takes one value may be given once.
 */
export function fromText(key: string, values: string[]): unknown {
  const kind = TEXT_KINDS[key] ?? "string";
  if (kind === "strings") return values.length === 1 ? values[0] : values;
  if (values.length > 1) {
    throw new RequestError(`give ${param(key)} once (it was given ${values.length} times)`);
  }
  const raw = values[0].trim();
  switch (kind) {
    case "string":
      return values[0];
    case "boolean": {
      const v = raw.toLowerCase();
      if (v === "" || v === "true" || v === "1" || v === "yes") return true;
      if (v === "false" || v === "0" || v === "no") return false;
      throw new RequestError(`${param(key)} must be true or false (got ${show(raw)})`);
    }
    case "int": {
      if (!/^-?\d{1,9}$/.test(raw)) {
        const r = RANGES[key];
        throw new RequestError(
          r
            ? `${param(key)} must be a whole number from ${r.min} to ${r.max} (got ${show(raw)})`
            : `${param(key)} must be a whole number (got ${show(raw)})`,
          key === "max_tokens" ? "bad_max_tokens" : "bad_request",
        );
      }
      return Number(raw);
    }
    case "number": {
      // A plain decimal: no exponent, sign, hex or Infinity (the schema checks the range).
      if (!/^\d{1,12}(?:\.\d{1,6})?$/.test(raw)) {
        throw new RequestError(
          `${param(key)} must be a number such as 100 (got ${show(raw)})`,
        );
      }
      return Number(raw);
    }
    case "ints": {
      const parts = raw.split(",").map((x) => x.trim()).filter(Boolean);
      if (parts.length > MAX_SLICES) {
        throw new RequestError(`${param(key)} takes at most ${MAX_SLICES} indexes per request`);
      }
      const numbers = parts.map((x) => {
        if (!/^-?\d{1,9}$/.test(x)) {
          throw new RequestError(
            `${param(key)} must be comma-separated whole numbers such as 3,4,5 (got ${show(x)})`,
          );
        }
        return Number(x);
      });
      return numbers.length === 1 ? numbers[0] : numbers;
    }
    case "json": {
      try {
        return JSON.parse(raw);
      } catch {
        throw new RequestError(
          `${param(key)} must be JSON, such as [{"type":"click","selector":"#more"}]`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------
// A page over the call's limit

/**
 * What a page over a call's limit tells the caller, after the network
 * layer's own words (the page's size, or that it exceeded the limit): the
 * value of `max_page_mb` that reads it when that is within the ceiling (the
 * page's size when known, else the ceiling), or the operator's setting when
 * it is not. `limit` is the call's limit in bytes, `size` the page's when
 * known, `asked` whether the call gave `max_page_mb`.
 */
export function pageTooLarge(limit: number, size: number | undefined, asked: boolean): Message {
  const ceiling = pageCeilingBytes();
  const whose = asked ? "this call's" : `the server's default (${PAGE_LIMIT_VARIABLE})`;
  if (size !== undefined && size <= ceiling) {
    return note`that limit is ${whose}: ask again with ${
      p("max_page_mb", megabytes(size))
    } to read it`;
  }
  if (size === undefined && limit < ceiling) {
    return note`that limit is ${whose}: ask again with a larger one, up to ${
      p("max_page_mb", Number(mib(ceiling)))
    } (this server's ceiling)`;
  }
  return note`${
    mib(ceiling)
  } MiB is the most this server reads, whatever a call asks; the server's operator can raise it with ${PAGE_CEILING_VARIABLE} (MiB) or ${PAGE_CEILING_FLAG}`;
}

// ---------------------------------------------------------------------------
// The view a request asks for

/** The views of a page request. */
export const VIEWS = ["page", "query", "section", "search", "slices"] as const;
/** One of {@link VIEWS}. */
export type ViewKind = typeof VIEWS[number];

/** The view a request names, checked for conflicts (a URL #fragment counts as a section). */
export type ViewChoice =
  | { kind: "page" }
  | { kind: "query"; query: string }
  | { kind: "section"; names: string[]; autoExpand: boolean; fromFragment: boolean }
  | { kind: "search"; query: string }
  | { kind: "slices"; indexes: number[] };

function list<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Whether a view reads the page's indexes (its slices, the search index or
 * the question index), which a large page's worker builds after its first
 * answer: such a view waits for them; an outline, a section or the whole
 * page does not.
 */
export function viewUsesIndex(kind: ViewChoice["kind"]): boolean {
  return kind === "query" || kind === "search" || kind === "slices";
}

/** What {@link chooseView} decided, with warnings for what it set aside. */
export interface ChosenView {
  /** The view. */
  view: ViewChoice;
  /** Server-written warnings (the fragment was ignored, ...), with parameter markers. */
  warnings: string[];
}

/**
 * The one view a request asks for. `fragment` is the URL's #fragment, and
 * `sourceOwnsFragment` says that the page's source reads it itself (GitHub's
 * `#L10-L20`), so it is not a section name.
 */
export function chooseView(
  req: PageRequest,
  fragment?: string,
  sourceOwnsFragment = false,
): ChosenView {
  const search = req.search?.trim() ? req.search : undefined;
  const query = req.query?.trim() ? req.query.trim() : undefined;
  const slices = list(req.slices);
  const sections = list(req.section).map((s) => s.trim()).filter(Boolean);
  const warnings: string[] = [];
  const given = [
    query !== undefined && "query",
    sections.length > 0 && "section",
    search !== undefined && "search",
    slices.length > 0 && "slices",
  ].filter((x): x is string => typeof x === "string");
  if (given.length > 1) {
    throw new RequestError(
      `${given.map(param).join(" and ")} cannot be combined: use one of ${param("query")}, ${
        param("section")
      }, ${param("search")} or ${param("slices")} per request`,
      "conflicting_views",
    );
  }
  if (query !== undefined) {
    if (fragment !== undefined) {
      warnings.push("the URL fragment was ignored because query was given");
    }
    return { view: { kind: "query", query }, warnings };
  }
  if (search !== undefined) return { view: { kind: "search", query: search }, warnings };
  if (slices.length > 0) return { view: { kind: "slices", indexes: slices }, warnings };
  const autoExpand = req.auto_expand ?? false;
  if (sections.length > 0) {
    if (fragment !== undefined) {
      warnings.push("the URL fragment was ignored because section was given");
    }
    return {
      view: { kind: "section", names: sections, autoExpand, fromFragment: false },
      warnings,
    };
  }
  if (fragment !== undefined && !sourceOwnsFragment) {
    return {
      view: { kind: "section", names: [fragment], autoExpand, fromFragment: true },
      warnings,
    };
  }
  return { view: { kind: "page" }, warnings };
}
