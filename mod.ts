/**
 * Parkour: an MCP server that lets LLM agents read the web with precision.
 *
 * Run it (MCP on stdio), with private networks refused at the socket:
 *
 * ```sh
 * deno run --no-prompt --allow-env --allow-net \
 *   --deny-net=0.0.0.0/8,10.0.0.0/8,100.64.0.0/10,127.0.0.0/8,169.254.0.0/16,172.16.0.0/12,192.168.0.0/16,[::1] \
 *   jsr:@parkour/mcp
 * ```
 *
 * Read a page from code:
 *
 * ```ts
 * import { fetchPage } from "jsr:@parkour/mcp";
 * const page = await fetchPage("https://peps.python.org/pep-0008/");
 * console.log(page.answer("how long should lines be?").text);
 * ```
 *
 * Or embed it and serve your own tools with the same envelope:
 *
 * ```ts
 * import { createServer, defineTool, Frontmatter, trusted } from "jsr:@parkour/mcp";
 * import { z } from "npm:zod@4";
 *
 * const hello = defineTool({
 *   key: "hello",
 *   names: { desktop: "hello", code: "Hello" },
 *   title: "Hello",
 *   description: "Greets the caller.",
 *   inputSchema: z.object({ name: z.string() }),
 *   annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
 *   handler: ({ name }, ctx) =>
 *     ctx.respond({
 *       frontmatter: new Frontmatter().set("greeting", trusted.text`hello`),
 *       fences: [{ content: `Hello, ${name}` }],
 *     }),
 * });
 * await createServer({ tools: [hello] }).serveStdio();
 * ```
 *
 * @module
 */
import { type Config, configFromEnv, type OutputFormat, type Profile } from "./lib/config.ts";
import { createApp } from "./lib/server/app.ts";
import { gatedHandler, type HttpServerHandle } from "./lib/server/http.ts";
import { TOOLS } from "./lib/tools/catalog.ts";
import type { ToolDefinition } from "./lib/tools/registry.ts";
import { errorResult, type ToolResult } from "./lib/envelope/response.ts";
import { runTool } from "./lib/server/mcp.ts";
import { main } from "./main.ts";
import { envelopeReady } from "./lib/envelope/frontmatter.ts";

// Library users render frontmatter synchronously: have the serializer ready.
await envelopeReady();

export { main, type MainOptions } from "./main.ts";
export { VERSION } from "./lib/version.ts";
export { OUTPUT_FORMATS, type OutputFormat, type Profile, PROFILES } from "./lib/config.ts";
export {
  type ArgsOf,
  type ArgsSchema,
  defineTool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
} from "./lib/tools/registry.ts";
export {
  APPEND_KEYS,
  type AppendKey,
  envelopeReady,
  Frontmatter,
  type FrontmatterScalar,
  type FrontmatterValue,
  parseFrontmatter,
  type RenderContext,
  TRUST_ADVISORY,
} from "./lib/envelope/frontmatter.ts";
export {
  isTrusted,
  Trusted,
  trusted,
  type TrustedConstructors,
  type TrustedPart,
  UntrustedValueError,
} from "./lib/trust.ts";
export {
  fence,
  type FenceOptions,
  newFenceId,
  type ParsedFence,
  parseFences,
  sanitizeLabel,
} from "./lib/envelope/fence.ts";
export {
  buildResponse,
  errorResult,
  type FencedPart,
  type RemoteError,
  RESPONSE_TOKEN_CAP,
  type ResponseContext,
  type ResponseSpec,
  type ToolResult,
} from "./lib/envelope/response.ts";
export {
  FormatError,
  type RecordValue,
  type Rendered,
  type RenderOptions,
  renderRecords,
} from "./lib/envelope/formats.ts";
export { registerTip, TipLedger } from "./lib/envelope/tips.ts";
export { estimateTokens } from "./lib/content/tokens/count.ts";
export {
  fetchPage,
  type FetchPageOptions,
  type Page,
  type PageAnswer,
  type PageHit,
  type PageSection,
  type PageView,
  type PageViewRequest,
} from "./lib/page.ts";
export { type Face, FACES, RequestError } from "./lib/views/errors.ts";
export {
  ContentError,
  type ContentErrorKind,
  type ContentErrorOptions,
  SourceError,
  type SourceErrorKind,
  type SourceRemote,
  ToolError,
} from "./lib/errors.ts";
export type { HttpServerHandle } from "./lib/server/http.ts";

/** Options of {@link createServer}; unset values come from the environment. */
export interface ServerOptions {
  /** Tools to serve; the built-in tools by default. */
  tools?: readonly ToolDefinition[];
  /** Tool-name profile (`desktop` or `code`). */
  profile?: Profile;
  /** Default output format of record-shaped results. */
  defaultOutput?: OutputFormat;
  /** HTTP address to bind (loopback by default). */
  host?: string;
  /** HTTP port (8765 by default; 0 picks a free one). */
  port?: number;
  /** Bearer token for HTTP (required off loopback). */
  token?: string;
}

/** A configured server. */
export interface ParkourServer {
  /** Names of the served tools, in list order. */
  toolNames(): string[];
  /** Serves MCP on stdin/stdout until stdin ends. */
  serveStdio(): Promise<void>;
  /** Serves MCP over HTTP at `/mcp`. */
  serveHttp(
    onListen?: (address: { hostname: string; port: number }) => void,
  ): HttpServerHandle;
  /**
   * A web-standard handler with the Host, Origin and token checks, for
   * mounting in your own `Deno.serve`.
   */
  fetch(request: Request): Promise<Response>;
  /** Ends in-flight work of the HTTP handler. */
  close(): Promise<void>;
  /**
   * Calls a tool in this process and returns its answer exactly as an MCP
   * client gets it (frontmatter, fenced page text, `isError` with advice on
   * failure). Arguments are checked against the tool's schema first.
   *
   * @example The outline of a page, as the tool renders it
   * ```ts
   * import { createServer } from "jsr:@parkour/mcp";
   * const server = createServer();
   * const result = await server.callTool("web_fetch_sections", {
   *   url: "https://peps.python.org/pep-0008/",
   * });
   * console.log(result.content[0].text);
   * ```
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<ToolResult>;
}

/**
 * Creates a server.
 *
 * @example Serve the built-in tools over HTTP on a free port
 * ```ts
 * import { createServer } from "jsr:@parkour/mcp";
 * const server = createServer({ port: 0 });
 * const handle = server.serveHttp(({ port }) => console.error(`port ${port}`));
 * await handle.shutdown();
 * ```
 */
export function createServer(options: ServerOptions = {}): ParkourServer {
  const config: Config = configFromEnv();
  if (options.profile) config.profile = options.profile;
  if (options.defaultOutput) config.defaultOutput = options.defaultOutput;
  if (options.host) config.http.host = options.host;
  if (options.port !== undefined) config.http.port = options.port;
  if (options.token) config.http.token = options.token;
  const app = createApp({ config, tools: options.tools ?? TOOLS });
  const gated = gatedHandler({
    handler: app.handler,
    host: config.http.host,
    token: config.http.token,
    allowedHosts: config.http.allowedHosts,
    allowedOrigins: config.http.allowedOrigins,
  });
  return {
    toolNames: () => app.registry.list().map((t) => t.name),
    serveStdio: () => app.serveStdio(),
    serveHttp: (onListen) => app.serveHttp(onListen),
    fetch: gated,
    close: () => app.handler.close(),
    callTool: async (name, args, options = {}) => {
      const tool = app.registry.byName(name);
      if (!tool) {
        const names = app.registry.list().map((t) => t.name).join(", ");
        return errorResult(`unknown tool '${name}'; this server's tools: ${names}`);
      }
      const schema = tool.definition.inputSchema as unknown as {
        "~standard": {
          validate(value: unknown): StandardResult | Promise<StandardResult>;
        };
      };
      const checked = await schema["~standard"].validate(args);
      if (checked.issues) {
        const problems = checked.issues.map((i) =>
          `${
            (i.path ?? []).map((p) => typeof p === "object" ? p.key : p).join(".") || "arguments"
          }: ${i.message}`
        );
        return errorResult(`invalid arguments for ${name}: ${problems.join("; ")}`);
      }
      return await runTool(
        tool,
        checked.value,
        { registry: app.registry, defaultOutput: config.defaultOutput },
        options.signal ?? new AbortController().signal,
      );
    },
  };
}

type StandardResult =
  | { value: unknown; issues?: undefined }
  | {
    issues: readonly {
      message: string;
      path?: readonly (PropertyKey | { key: PropertyKey })[];
    }[];
  };

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
