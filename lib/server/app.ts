/**
 * Wires the registry, the SDK instance factory and the transports together.
 * The library API starts the server through here, and so does `parkour serve
 * --http`; the CLI's stdio server uses `lib/server/core.ts` and
 * `lib/server/stdio.ts` directly, which load neither the HTTP service nor
 * the tools before the first answer.
 *
 * @module
 */
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import type { Config } from "../config.ts";
import type { TipLedger } from "../envelope/tips.ts";
import { log } from "../log.ts";
import { type ToolDefinition, ToolRegistry } from "../tools/registry.ts";
import { OAuthResource } from "./auth.ts";
import { configuredTools, createMcpCore, loadServed, type McpCore } from "./core.ts";
import { type HttpServerHandle, serveHttp } from "./http.ts";
import { cancellable } from "./inflight.ts";
import { registerServed } from "./mcp.ts";
import { createRestApi, type RestApi } from "./rest.ts";
import { MAX_MESSAGE_BYTES, serveStdio } from "./stdio.ts";

/** What an app is built from. */
export interface AppOptions {
  /** Resolved configuration. */
  config: Config;
  /**
   * Tools to serve, in list order; or a function that imports them, called
   * once the server needs them (after the first answer, or at a request that
   * uses them).
   */
  tools: readonly ToolDefinition[] | (() => Promise<readonly ToolDefinition[]>);
  /** Tip ledger; the process ledger by default. */
  tips?: TipLedger;
}

/** A configured server, ready to serve on either transport. */
export interface App {
  /** The tools of the active profile (of an app made with `tools` in hand). */
  registry: ToolRegistry;
  /** The tools of the active profile, loading them if they are not yet. */
  tools(): Promise<ToolRegistry>;
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
  const { config } = options;
  const selection = {
    select: config.tools,
    selectFrom: config.toolsFrom,
    mutating: config.mutatingTools,
  };
  let registry: ToolRegistry | undefined;
  let core: McpCore;
  if (typeof options.tools === "function") {
    const definitions = options.tools;
    core = createMcpCore({
      load: async () => {
        const served = await loadServed(
          configuredTools(config, definitions, { tips: options.tips }),
        );
        registry = served.registry;
        return served;
      },
    });
  } else {
    const loaded = new ToolRegistry(options.tools, config.profile, selection);
    registry = loaded;
    const settings = { registry: loaded, defaultOutput: config.defaultOutput, tips: options.tips };
    core = createMcpCore({
      loaded: { registry: loaded, register: (server) => registerServed(server, settings) },
    });
  }
  const handler = core.handler;
  const rest = createRestApi();
  return {
    get registry(): ToolRegistry {
      if (!registry) throw new Error("the tools are not loaded yet: await app.tools() first");
      return registry;
    },
    tools: async () => (await core.served()).registry,
    handler,
    rest,
    serveStdio: () =>
      serveStdio({
        modern: handler,
        legacy: core.legacy,
        complete: core.complete,
        onFirstAnswer: core.prefetch,
      }),
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
          // Tools not yet loaded load now, while the server waits for its first client.
          core.prefetch();
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
