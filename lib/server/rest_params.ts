/**
 * The HTTP API's parameters: the request model's fields read from a query
 * string (`/api`, `/api/stream` and `/api/sections`), an output format and
 * a frontmatter switch, checked by the same schemas the MCP tools list.
 *
 * @module
 */
import { z } from "zod";
import {
  fromText,
  OUTLINE_FIELDS,
  type OutlineRequest,
  PAGE_FIELDS,
  type PageRequest,
  param,
  parseWith,
  RequestError,
  strictSchema,
  unknownParameter,
} from "../views/request.ts";

/** Output formats of `/api`. */
export const API_FORMATS = ["md", "text", "json"] as const;
/** Output formats of `/api/sections`. */
export const SECTIONS_FORMATS = ["md", "json"] as const;

const formatField = (formats: readonly [string, ...string[]]) =>
  z.enum(formats, {
    error: (i) =>
      `${param("format")} must be one of ${formats.join(", ")} (got '${
        String(i.input).slice(0, 40)
      }')`,
  }).optional().describe(`output format: ${formats.join(", ")} (default md)`);

/** Fields of `/api` and `/api/stream`: the page request, an output format, a frontmatter switch. */
const { max_elements: _m, ...API_PAGE_FIELDS } = PAGE_FIELDS;
const API_FIELDS = {
  // The page request as the tools take it (rendering included); the interactive-elements list
  // is the tool's second fence, which the HTTP API's one body has no place for.
  ...API_PAGE_FIELDS,
  format: formatField(API_FORMATS),
  frontmatter: z.boolean({
    error: () => `${param("frontmatter")} must be true or false (also 1 or 0)`,
  })
    .optional().describe("start the body with a frontmatter block of trusted values"),
};
/** Fields of `/api/sections`. */
const SECTIONS_FIELDS = { ...OUTLINE_FIELDS, format: formatField(SECTIONS_FORMATS) };

/** The schema of `/api` (and `/api/stream`) parameters. */
export const apiSchema = strictSchema(API_FIELDS);
/** The schema of `/api/sections` parameters. */
export const sectionsSchema = strictSchema(SECTIONS_FIELDS);

/** Query parameters of `/api` and `/api/stream`. */
export const API_PARAMS: readonly string[] = Object.keys(API_FIELDS);
/** Query parameters of `/api/sections`. */
export const SECTIONS_PARAMS: readonly string[] = Object.keys(SECTIONS_FIELDS);

/** A parsed `/api` (or `/api/stream`) request: the page request and how to answer. */
export interface ApiRequest {
  /** The page request. */
  page: Omit<PageRequest, "max_elements">;
  /** The body's format. */
  format: typeof API_FORMATS[number];
  /** Whether the body starts with a frontmatter block. */
  frontmatter: boolean;
}

/** A parsed `/api/sections` request. */
export interface SectionsRequest {
  /** The outline request. */
  outline: OutlineRequest;
  /** The body's format. */
  format: typeof SECTIONS_FORMATS[number];
}

/** Reads the parameters of `/api` and `/api/stream`. */
export function apiRequest(params: URLSearchParams): ApiRequest {
  const { format, frontmatter, ...page } = parseParams(params, apiSchema, API_PARAMS);
  return {
    page,
    format: (format ?? "md") as ApiRequest["format"],
    frontmatter: frontmatter ?? false,
  };
}

/** Reads the parameters of `/api/sections`. */
export function sectionsRequest(params: URLSearchParams): SectionsRequest {
  const { format, ...outline } = parseParams(params, sectionsSchema, SECTIONS_PARAMS);
  return { outline, format: (format ?? "md") as SectionsRequest["format"] };
}

/** Reads a query string into a request, field by field, then checks it with `schema`. */
function parseParams<T>(
  params: URLSearchParams,
  schema: z.ZodType<T>,
  keys: readonly string[],
): T {
  const input: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    if (!keys.includes(name)) {
      throw new RequestError(unknownParameter(name, keys, "rest"), "unknown_parameter");
    }
  }
  const raw = params.getAll("url").map((u) => u.trim());
  if (raw.length === 0 || raw.every((u) => u === "")) {
    throw new RequestError(
      "missing url: pass the page address as ?url=<http(s) URL, URL-encoded>",
      "missing_url",
    );
  }
  for (const key of keys) {
    const values = params.getAll(key);
    if (values.length === 0) continue;
    let value = fromText(key, values);
    if (key === "format" && typeof value === "string") {
      value = value.trim().toLowerCase() === "markdown" ? "md" : value.trim().toLowerCase();
    }
    // A blank view parameter counts as absent.
    if ((key === "query" || key === "search" || key === "slices") && value === "") continue;
    input[key] = value;
  }
  return parseWith(schema, input);
}
