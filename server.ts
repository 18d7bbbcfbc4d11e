/**
 * The server as a library: serve the built-in tools (or tools of your own,
 * with the same envelope) over MCP on stdio or HTTP, mount the gated
 * handler (MCP at `/mcp`, the HTTP API at `/api`) in your own `Deno.serve`,
 * or call a tool in this process.
 *
 * ```ts
 * import { createServer } from "jsr:@parkour/mcp/server";
 * import { defineTool, Frontmatter, trusted } from "jsr:@parkour/mcp";
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
export { createServer, type ParkourServer, type ServerOptions } from "./lib/server/create.ts";
export type { HttpServerHandle } from "./lib/server/http.ts";
