/**
 * One MCP client for end-to-end tests: starts a server script (main.ts by
 * default) with the start task's flags, optionally replaying
 * `fixtures/http`, pinned to the 2026-07-28 protocol; and a tool call read
 * back into frontmatter, fences and flags.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { envelopeReady, parseFences, parseFrontmatter } from "../../mod.ts";
import { childEnv, launch, MAIN, replaySetup } from "./process.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

/** How to start the server under test. */
export interface ServerOptions {
  /** CLI arguments after the script. */
  args?: string[];
  /** Environment on top of the replay environment (childEnv adds the basics). */
  env?: Record<string, string>;
  /** Replay `fixtures/http` (default true). */
  replay?: boolean;
  /** Directories readable beyond the replay ones (merged into one --allow-read). */
  readDirs?: string[];
  /** `deno run` flags beyond the product's own and the read flag. */
  extraFlags?: string[];
  /**
   * The `deno` arguments before the script (`run` first) instead of the
   * start task's: a launch line under test, exactly as shipped. The read and
   * extra flags follow them.
   */
  runFlags?: string[];
  /** Receives the server's stderr from its first byte. */
  onStderr?: (text: string) => void;
  /** The script to run (default main.ts). */
  script?: string;
  /** Client name. */
  name?: string;
  /** Leave the protocol version to the SDK's default negotiation (a legacy client). */
  unpinned?: boolean;
}

/** A started server: its client and transport. */
export interface Started {
  client: Client;
  transport: StdioClientTransport;
}

/** Starts the server and connects a pinned client; returns both ends. */
export async function startServer(options: ServerOptions = {}): Promise<Started> {
  const replay = options.replay === false ? { env: {}, flags: [] } : replaySetup();
  const read = replay.flags.map((f) => f.replace("--allow-read=", "")).join(",").split(",")
    .concat(options.readDirs ?? []).filter(Boolean);
  const flags = [
    ...(read.length ? [`--allow-read=${read.join(",")}`] : []),
    ...(options.extraFlags ?? []),
  ];
  const { command, args } = launch(
    options.script ?? MAIN,
    options.args ?? [],
    flags,
    options.runFlags,
  );
  const info = { name: options.name ?? "mcp-test", version: "1" };
  const client = options.unpinned
    ? new Client(info)
    : new Client(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new StdioClientTransport({
    command,
    args,
    env: childEnv({ ...replay.env, ...options.env }),
    stderr: "pipe",
  });
  const onStderr = options.onStderr;
  if (onStderr) {
    const decoder = new TextDecoder();
    transport.stderr?.on("data", (chunk: Uint8Array) => onStderr(decoder.decode(chunk)));
  }
  await client.connect(transport);
  return { client, transport };
}

/**
 * Waits (at most 5 s) until `pattern` shows in stderr collected through
 * `onStderr`: stderr and the protocol are separate pipes, so a log line may
 * trail the answers.
 */
export async function stderrSettled(stderr: () => string, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 100 && !pattern.test(stderr()); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the server and returns a connected, pinned client. */
export async function connectServer(options: ServerOptions = {}): Promise<Client> {
  return (await startServer(options)).client;
}

/** One parsed fence of a response. */
export type Fence = ReturnType<typeof parseFences>[number];

/** A tool result, read. */
export interface Answer {
  /** The first text content. */
  text: string;
  /** The frontmatter (`{}` when none, or for an error with `emptyFmOnError`). */
  fm: Record<string, unknown>;
  /** The lines of every fence, in order. */
  body: string[];
  /** The lines of each fence. */
  fences: string[][];
  /** The fences as parsed (title and lines). */
  blocks: Fence[];
  isError: boolean;
  structured?: Record<string, unknown>;
}

/** How to read a tool result. */
export interface CallOptions {
  /** Leave `fm` empty for an error result instead of parsing it. */
  emptyFmOnError?: boolean;
  /** Progress callback for the request. */
  onprogress?: (p: { progress: number; message?: string }) => void;
  /** Request timeout in milliseconds. */
  timeout?: number;
}

/** Calls a tool and reads the first text content. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<Answer> {
  const request: { onprogress?: CallOptions["onprogress"]; timeout?: number } = {};
  if (options.onprogress) request.onprogress = options.onprogress;
  if (options.timeout !== undefined) request.timeout = options.timeout;
  const result = await client.callTool(
    { name, arguments: args },
    options.onprogress || options.timeout !== undefined ? request : undefined,
  );
  const text = (result.content as { text: string }[])[0].text;
  const isError = result.isError === true;
  const fm = isError && options.emptyFmOnError ? {} : parseFrontmatter(text) ?? {};
  const blocks = fm.fence ? parseFences(text, fm.fence as string) : [];
  const fences = blocks.map((f) => f.lines);
  return {
    text,
    fm,
    body: fences.flat(),
    fences,
    blocks,
    isError,
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** {@link callTool} with `emptyFmOnError`: an error result's text is read, its frontmatter left empty. */
export function callLenient(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  return callTool(client, name, args, { emptyFmOnError: true });
}

/** A frontmatter value as a list: absent is empty, a scalar is one item. */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** The frontmatter block of a response, delimiters included. */
export function frontmatterText(text: string): string {
  return text.slice(0, text.indexOf("\n---", 3) + 4);
}
