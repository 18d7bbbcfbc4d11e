/**
 * Baseline for the cold-start benchmark: the smallest server the SDK v2 can
 * make (no tools, no envelope), served by the SDK's own stdio entry.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

serveStdio(() =>
  new McpServer({ name: "bare", version: "0.0.0" }, { capabilities: { tools: {} } })
);
