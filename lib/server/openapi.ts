/**
 * The OpenAPI 3.1 description of the HTTP API (`GET /openapi.json`),
 * with its query parameters generated from the request schemas the handler
 * in `rest.ts` parses with.
 *
 * @module
 */

import { z } from "zod";

type Json = Record<string, unknown>;

const ERROR_SCHEMA: Json = {
  type: "object",
  required: ["error"],
  properties: {
    error: { type: "string", description: "What happened and what to try next." },
    kind: {
      type: "string",
      description:
        "Category for programs: missing_url, bad_request, unknown_parameter, source, bad_max_tokens, conflicting_views, invalid_url, scheme, credentials, blocked_address, status, timeout, too_large, dns, redirect, transport, unsupported_type, unreadable_content, no_text, javascript_shell, too_slow, section_not_found, slice_not_found, method_not_allowed, unauthorized, forbidden_host, forbidden_origin, internal.",
    },
    upstream_status: {
      type: "integer",
      description: "With kind=status: the HTTP status the page's server answered.",
    },
    upstream_excerpt: {
      type: "string",
      description: "With kind=status: the start of the upstream error page, as plain text.",
    },
  },
};

const EXTRACT_SCHEMA: Json = {
  type: "object",
  description: "Present only when a query is active.",
  required: ["extracted", "confidence", "sections_selected", "original_tokens", "returned_tokens"],
  properties: {
    extracted: {
      type: "boolean",
      description: "False when the whole page came back (small page, or nothing ranked).",
    },
    confidence: { enum: ["high", "medium", "low", null] },
    sections_selected: { type: "integer" },
    original_tokens: { type: "integer", description: "Estimated tokens of the whole page." },
    returned_tokens: { type: "integer", description: "Real (o200k) tokens returned." },
  },
};

const PAGE_SCHEMA: Json = {
  type: "object",
  required: [
    "markdown",
    "title",
    "url",
    "content_type",
    "source",
    "cached",
    "full_page",
    "total_sections",
    "view",
  ],
  properties: {
    markdown: {
      type: "string",
      description:
        "The view as Markdown under the page's title line (# Title), with the frontmatter block before it when frontmatter=true.",
    },
    title: { type: ["string", "null"] },
    url: { type: "string", description: "The URL as requested." },
    final_url: { type: "string", description: "Where redirects led, when elsewhere." },
    content_type: { enum: ["html", "markdown", "text", "json", "xml", "pdf"] },
    media_type: { type: "string", description: "The media type the server sent." },
    source: { type: "string", description: "Source adapter (`web` for the generic path)." },
    cached: { type: "boolean" },
    full_page: { type: "boolean" },
    total_sections: { type: "integer" },
    view: { enum: ["page", "query", "section", "search", "slices"] },
    query: { type: "string" },
    search: { type: "string" },
    extract: EXTRACT_SCHEMA,
    truncated: { type: "boolean" },
    total_tokens: { type: "integer" },
    returned_tokens: { type: "integer" },
    sections_returned: { type: "array", items: { type: "integer" } },
    sections_not_found: {
      type: "array",
      items: {
        type: "object",
        properties: {
          request: { type: "string" },
          suggestions: { type: "array", items: { type: "string" } },
        },
      },
    },
    total_slices: { type: "integer" },
    matched_slices: { type: "array", items: { type: "integer" } },
    shown_slices: { type: "array", items: { type: "integer" } },
    search_warnings: { type: "array", items: { type: "string" } },
    slices_not_found: { type: "array", items: { type: "integer" } },
    dropped_text_share: { type: "number" },
    degraded: { type: "boolean" },
    hints: {
      type: "array",
      items: { type: "string" },
      description: "Next steps, each a sentence with the requests it names.",
    },
    hint_steps: {
      type: "array",
      description: "The hints as pieces: text, and the calls they name for a client to run.",
      items: {
        type: "array",
        items: {
          oneOf: [
            { type: "string" },
            {
              type: "object",
              required: ["view", "params", "href"],
              properties: {
                view: { enum: ["page", "outline"] },
                params: {
                  type: "object",
                  description:
                    'Parameters besides url; a value to fill in is {"placeholder": "..."}.',
                },
                href: { type: "string" },
              },
            },
          ],
        },
      },
    },
  },
};

const OUTLINE_SCHEMA: Json = {
  type: "object",
  required: ["url", "title", "content_type", "source", "cached", "total_sections", "sections"],
  properties: {
    url: { type: "string" },
    title: { type: ["string", "null"] },
    final_url: { type: "string" },
    content_type: { enum: ["html", "markdown", "text", "json", "xml", "pdf"] },
    source: { type: "string" },
    cached: { type: "boolean" },
    full_page: { type: "boolean" },
    total_sections: { type: "integer" },
    slice: { type: "integer" },
    total_slices: { type: "integer" },
    clamped_from: { type: "integer" },
    sections: {
      type: "array",
      items: {
        type: "object",
        properties: {
          index: { type: "integer" },
          level: { type: "integer", minimum: 1, maximum: 6 },
          title: { type: "string" },
          address: { type: "string", description: "What section= accepts: #id or #slug." },
          slug: { type: "string" },
          id: { type: ["string", "null"] },
          parent: { type: "integer", description: "Index of the parent section, or -1." },
          header_only: { type: "boolean" },
        },
      },
    },
  },
};

/** A zod object schema's fields, as far as this module reads them. */
interface FieldSchemas {
  shape: Record<string, z.ZodType>;
}

// Zod's JSON Schema artefacts that mean nothing here.
function clean(schema: Json): Json {
  const { $schema: _, ...rest } = schema;
  return rest;
}

/**
 * The query parameters of one path, generated from the request schema the
 * handler parses with: names, types, ranges and descriptions come from it,
 * never written twice. A field that takes one value or a list becomes an
 * array parameter: `section` repeated (`explode`), `slices` comma-separated.
 */
export function queryParameters(schema: FieldSchemas): Json[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const json = clean(z.toJSONSchema(field, { io: "input", unrepresentable: "any" }) as Json);
    const description = typeof json.description === "string" ? json.description : undefined;
    delete json.description;
    let value: Json = json;
    let extra: Json = {};
    const anyOf = json.anyOf as Json[] | undefined;
    const list = anyOf?.find((x) => x.type === "array");
    if (anyOf && list) {
      value = {
        type: "array",
        items: list.items,
        ...(list.maxItems ? { maxItems: list.maxItems } : {}),
      };
      extra = name === "slices"
        ? { style: "form", explode: false }
        : { style: "form", explode: true };
    }
    if (name === "url") value = { ...value, format: "uri" };
    const out: Json = { name, in: "query" };
    if (description) out.description = description;
    if (name === "url") out.required = true;
    return { ...out, schema: value, ...extra };
  });
}

const header = (description: string, schema: Json = { type: "string" }): Json => ({
  description,
  schema,
});

const PAGE_HEADERS: Json = {
  "X-Source": header("Source adapter that read the page (`web` for the generic path)."),
  "X-Cache": header("`hit` when the page came from the page cache, `miss` when fetched.", {
    enum: ["hit", "miss"],
  }),
  "X-Extracted": header("With query: whether extraction narrowed the page.", {
    enum: ["true", "false"],
  }),
  "X-Extract-Confidence": header(
    "With query: high, medium or low; omitted when the page was returned whole without ranking.",
    { enum: ["high", "medium", "low"] },
  ),
  "X-Extract-Sections": header("With query: sections selected.", { type: "integer" }),
  "X-Extract-Original-Tokens": header("With query: estimated tokens of the page.", {
    type: "integer",
  }),
  "X-Extract-Returned-Tokens": header("With query: real (o200k) tokens returned.", {
    type: "integer",
  }),
  "X-Truncated": header("`true` when max_tokens cut the page or the sections."),
};

const errorResponse = (description: string): Json => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const PAGE_ERRORS: Json = {
  "400": errorResponse(
    "Bad request: missing url, bad max_tokens, several views, unknown format, or a URL the network layer refuses (scheme, credentials).",
  ),
  "401": errorResponse("PARKOUR_HTTP_TOKEN is set and the bearer token is missing or wrong."),
  "403": errorResponse(
    "The page's address is refused (private, loopback, link-local...), or the Host or Origin header is not allowed.",
  ),
  "404": errorResponse(
    "The page's server answered 404 (upstream_status says so), or no section/slice matched.",
  ),
  "405": errorResponse("Only GET and HEAD are allowed."),
  "410": errorResponse("The page's server answered 410."),
  "415": errorResponse("The page's media type cannot be read as text."),
  "422": errorResponse("The content could not be converted, or has no text (JavaScript shell)."),
  "502": errorResponse(
    "The page's server failed (any other upstream status, quoted in upstream_status), the page is over the size cap (kind too_large), or DNS, redirect or connection failures.",
  ),
  "504": errorResponse("The page's server did not answer within the deadline (60 s)."),
};

/** The OpenAPI 3.1 document of the HTTP API. */
export function openApiDocument(
  version: string,
  schemas: { api: FieldSchemas; sections: FieldSchemas },
): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Parkour HTTP API",
      version,
      description:
        "Web pages as clean Markdown for programs, served by `parkour serve --http` beside the MCP endpoint /mcp. Pages are cached for an hour and shared with the MCP tools, so several questions about one URL cost one fetch. Every error is JSON {error, kind}.",
    },
    servers: [{ url: "/" }],
    security: [{}, { bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "Required on every path but /healthz when PARKOUR_HTTP_TOKEN is set.",
        },
      },
      schemas: {
        Error: ERROR_SCHEMA,
        Page: PAGE_SCHEMA,
        Outline: OUTLINE_SCHEMA,
        Extract: EXTRACT_SCHEMA,
      },
    },
    paths: {
      "/api": {
        get: {
          operationId: "getPage",
          summary: "A page, or one view of it, as Markdown, plain text or JSON",
          description:
            "Without a view parameter and without max_tokens: the whole page (main content, or everything with full_page). Views are exclusive: query, section, search or slices.",
          parameters: queryParameters(schemas.api),
          responses: {
            "200": {
              description: "The page or view.",
              headers: PAGE_HEADERS,
              content: {
                "text/markdown": { schema: { type: "string" } },
                "text/plain": { schema: { type: "string" } },
                "application/json": { schema: { $ref: "#/components/schemas/Page" } },
              },
            },
            ...PAGE_ERRORS,
          },
        },
      },
      "/api/sections": {
        get: {
          operationId: "getOutline",
          summary: "A page's outline: its headings with the address section= accepts",
          parameters: queryParameters(schemas.sections),
          responses: {
            "200": {
              description: "The outline.",
              headers: {
                "X-Source": PAGE_HEADERS["X-Source"],
                "X-Cache": PAGE_HEADERS["X-Cache"],
                "X-Total-Sections": header("Sections in the page.", { type: "integer" }),
              },
              content: {
                "text/markdown": { schema: { type: "string" } },
                "application/json": { schema: { $ref: "#/components/schemas/Outline" } },
              },
            },
            ...PAGE_ERRORS,
          },
        },
      },
      "/api/stream": {
        get: {
          operationId: "streamPage",
          summary: "/api as server-sent events",
          description:
            "Takes the parameters of /api (format is ignored: the result is the format=json record). Events: `status` with {stage: fetching | cached | converting | extracting, url}, then `result` with the format=json record, or `error` with {error, status, kind}; then the stream ends. Parameter errors are answered with a plain 400 JSON body before the stream starts. Closing the connection cancels the work.",
          parameters: queryParameters(schemas.api),
          responses: {
            "200": {
              description: "The event stream.",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            "400": PAGE_ERRORS["400"],
            "401": PAGE_ERRORS["401"],
            "403": errorResponse("The Host or Origin header is not allowed."),
            "405": PAGE_ERRORS["405"],
          },
        },
      },
      "/healthz": {
        get: {
          operationId: "health",
          summary: "Liveness: never needs the token (Host and Origin are still checked)",
          security: [{}],
          responses: {
            "200": {
              description: "Serving.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["status", "version"],
                    properties: { status: { const: "ok" }, version: { type: "string" } },
                  },
                },
              },
            },
            "403": errorResponse("The Host or Origin header is not allowed."),
            "405": PAGE_ERRORS["405"],
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "openapi",
          summary: "This description",
          responses: {
            "200": {
              description: "OpenAPI 3.1 document.",
              content: { "application/json": { schema: { type: "object" } } },
            },
            "401": PAGE_ERRORS["401"],
            "403": errorResponse("The Host or Origin header is not allowed."),
            "405": PAGE_ERRORS["405"],
          },
        },
      },
    },
  };
}
