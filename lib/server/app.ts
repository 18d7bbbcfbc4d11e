/**
 * Wires the registry, the SDK instance factory and the transports together.
 * `main.ts` and the library API both start the server through here.
 *
 * @module
 */
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { Config } from "../config.ts";
import type { TipLedger } from "../envelope/tips.ts";
import { log } from "../log.ts";
import { type ToolDefinition, ToolRegistry } from "../tools/registry.ts";
import { OAuthResource } from "./auth.ts";
import { type HttpServerHandle, serveHttp } from "./http.ts";
import { cancellable } from "./inflight.ts";
import { createMcpServer } from "./mcp.ts";
import { createRestApi, type RestApi } from "./rest.ts";
import { MAX_MESSAGE_BYTES, serveStdio } from "./stdio.ts";

/** What an app is built from. */
export interface AppOptions {
  /** Resolved configuration. */
  config: Config;
  /** Tools to serve, in list order. */
  tools: readonly ToolDefinition[];
  /** Tip ledger; the process ledger by default. */
  tips?: TipLedger;
}

/** A configured server, ready to serve on either transport. */
export interface App {
  /** The tools of the active profile. */
  registry: ToolRegistry;
  /** The per-request MCP handler (both eras). */
  handler: McpHttpHandler;
  /** The HTTP API served beside `/mcp` (`/api`, `/api/sections`, `/api/stream`, ...). */
  rest: RestApi;
  /** Serves stdio until input ends. */
  serveStdio(): Promise<void>;
  /** Serves HTTP; resolves the handle once bound. */
  serveHttp(onListen?: (address: { hostname: string; port: number }) => void): HttpServerHandle;
}

/** Builds an app. */
export function createApp(options: AppOptions): App {
  const registry = new ToolRegistry(options.tools, options.config.profile, {
    select: options.config.tools,
    selectFrom: options.config.toolsFrom,
  });
  const factory = () =>
    createMcpServer({
      registry,
      defaultOutput: options.config.defaultOutput,
      tips: options.tips,
    });
  const handler = createMcpHandler(factory, {
    legacy: "stateless",
    maxRequestBodySize: MAX_MESSAGE_BYTES,
    onerror: (error) => log("debug", "mcp handler", error.message),
  });
  const rest = createRestApi();
  return {
    registry,
    handler,
    rest,
    serveStdio: () => serveStdio({ modern: handler, legacy: factory }),
    serveHttp: (onListen) =>
      serveHttp({
        handler: cancellable(handler, MAX_MESSAGE_BYTES),
        rest,
        host: options.config.http.host,
        port: options.config.http.port,
        token: options.config.http.token,
        oauth: options.config.http.oauth ? new OAuthResource(options.config.http.oauth) : undefined,
        allowedHosts: options.config.http.allowedHosts,
        allowedOrigins: options.config.http.allowedOrigins,
        limits: options.config.http.limits,
        onListen: (address) => {
          onListen?.(address);
          const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
          const origin = `http://${host}:${address.port}`;
          log(
            "info",
            `HTTP API at ${origin}/api (see /openapi.json); try it in a browser at ${origin}/`,
          );
        },
      }),
  };
}
