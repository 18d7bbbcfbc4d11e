/**
 * A server to embed: the MCP server on stdio or over HTTP, the gated
 * web-standard handler (MCP at `/mcp`, the HTTP API beside it) for a
 * `Deno.serve` of your own, and `callTool` to run a tool in this process.
 * The package's `./server` entry (`server.ts`) exports it.
 *
 * @module
 */
import { type Config, configFromEnv, type OutputFormat, type Profile } from "../config.ts";
import { errorResult, type ToolResult } from "../envelope/response.ts";
import { TOOLS } from "../tools/catalog.ts";
import type { ToolDefinition } from "../tools/registry.ts";
import { createApp } from "./app.ts";
import { gatedHandler, type HttpServerHandle } from "./http.ts";
import { runTool } from "./mcp.ts";

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
  /**
   * Turn on the actions that change data (the research shelf's confirm,
   * score, note, remove, import and clear), as `--enable-mutating-tools`;
   * off unless `PARKOUR_ENABLE_MUTATING_TOOLS` is set.
   */
  enableMutatingTools?: boolean;
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
   * import { createServer } from "jsr:@parkour/mcp/server";
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
 * import { createServer } from "jsr:@parkour/mcp/server";
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
  if (options.enableMutatingTools !== undefined) {
    config.mutatingTools = options.enableMutatingTools;
  }
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
      const schema = tool.inputSchema as unknown as {
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
