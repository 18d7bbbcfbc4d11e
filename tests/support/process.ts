/**
 * Starting the real server process the way the README does, for end-to-end
 * tests: the permission flags come from the `start` task of deno.json, so a
 * test fails if the documented launch line lacks a permission.
 */
import { sharedDir } from "./shared.ts";
import meta from "../../deno.json" with { type: "json" };
import { TOOLS } from "../../lib/tools/catalog.ts";
import { BIND_NETWORKS } from "../../lib/install/launch.ts";

/** Names of the shipped tools in the desktop profile, in list order. */
export const SHIPPED_TOOLS: string[] = TOOLS.map((t) => t.names.desktop);

const ROOT = new URL("../../", import.meta.url);

/** The repository root as a path. */
export const ROOT_DIR: string = decodeURIComponent(ROOT.pathname).replace(/\/$/, "");

/**
 * The development configuration: the product's import map (deno.json) plus
 * what tests and benchmarks use, with a lockfile of its own, so the product's
 * deno.lock (what `deno task` installs on a first run) holds only the
 * product's packages. A child `deno` process that loads a test or bench
 * module importing a development package needs `--config` with it.
 */
export const DEV_CONFIG = `${ROOT_DIR}/deno.dev.json`;

/** The main script path. */
export const MAIN = `${ROOT_DIR}/main.ts`;
/** The CLI with the test tools. */
export const TOOL_SERVER = `${ROOT_DIR}/tests/support/tool_server.ts`;

/** A `NAME=value` word before a task's command. */
const SETTING = /^([A-Z_]+)=(\S*)$/;

/**
 * A task's line (a deno.json `command`) as the variables it sets before its
 * command (`MALLOC_ARENA_MAX=1`) and the words of the command.
 */
export function splitTaskLine(line: string): { env: Record<string, string>; words: string[] } {
  const words = line.split(/\s+/);
  const env: Record<string, string> = {};
  let m: RegExpExecArray | null;
  while ((m = SETTING.exec(words[0] ?? "")) !== null) {
    env[m[1]] = m[2];
    words.shift();
  }
  return { env, words };
}

/**
 * The environment a task's line sets before `deno run` (`MALLOC_ARENA_MAX=1`
 * for the one-shot commands), for a test or a bench that runs its process as
 * the task would.
 */
export function taskEnv(task: "fetch" | "sections"): Record<string, string> {
  return splitTaskLine(meta.tasks[task].command).env;
}

/**
 * `deno run` flags of a task's line (without the script), `$HOME` expanded
 * to `home` and a read grant of `.` to the checkout (where `deno task` runs
 * its tasks), so a test may start the process in another folder.
 * With `loopback`, the loopback and 0.0.0.0 entries leave `--deny-net`: tests talk to
 * upstream servers they start on 127.0.0.1 and bind ports there, which the
 * shipped stdio line refuses at the socket (tests/install/least_privilege_test.ts
 * runs the lines exactly as shipped).
 */
export function taskFlags(
  task: "start" | "serve:http" | "doctor" | "fetch" | "sections" = "start",
  loopback = true,
  home: string = Deno.env.get("HOME") ?? "/tmp",
): string[] {
  const { words } = splitTaskLine(meta.tasks[task].command);
  const end = words.indexOf("main.ts");
  if (words[0] !== "deno" || words[1] !== "run" || end < 0) {
    throw new Error(`unexpected shape of the ${task} task`);
  }
  const flags = words.slice(1, end).map((w) => w.replaceAll("$HOME", home)).map((w) =>
    w.startsWith("--allow-read=")
      ? "--allow-read=" + w.slice(13).split(",").map((p) => p === "." ? ROOT_DIR : p).join(",")
      : w
  );
  return loopback ? openLoopback(flags) : flags;
}

/**
 * The flags with BIND_NETWORKS (loopback, 0.0.0.0) taken out of `--deny-net`,
 * for tests that serve pages on 127.0.0.1 or bind ports there.
 */
export function openLoopback(flags: string[]): string[] {
  return flags.map((w) =>
    w.startsWith("--deny-net=")
      ? "--deny-net=" + w.slice(11).split(",").filter((n) => !BIND_NETWORKS.includes(n)).join(",")
      : w
  );
}

/** `deno run` flags of the start task as tests use them (see {@link taskFlags}). */
export function startFlags(): string[] {
  return taskFlags("start");
}

/**
 * Command and args launching `script` with the start task's flags (or
 * `runFlags`, starting with `run`), plus `extraFlags` a test needs beyond
 * the product's own (reading fixtures).
 */
export function launch(
  script: string = MAIN,
  args: string[] = [],
  extraFlags: string[] = [],
  runFlags: string[] = startFlags(),
): {
  command: string;
  args: string[];
} {
  // A test that asks for Deno's own log (`--log-level=debug`) gets it: the task lines' `--quiet`
  // would win over it.
  const logged = extraFlags.some((f) => f.startsWith("--log-level"));
  const base = logged ? runFlags.filter((f) => f !== "--quiet") : runFlags;
  return { command: Deno.execPath(), args: [...base, ...extraFlags, script, ...args] };
}

/** Environment and flags that make a server replay `fixtures/http` instead of using the network. */
export function replaySetup(): { env: Record<string, string>; flags: string[] } {
  const dir = `${ROOT_DIR}/fixtures/http`;
  const shared = sharedDir();
  const env: Record<string, string> = { PARKOUR_REPLAY_DIR: dir };
  const read = [dir];
  if (shared) {
    env.PARKOUR_SHARED_DIR = shared;
    read.push(shared);
  }
  return { env, flags: [`--allow-read=${read.join(",")}`] };
}

const REAL_HOME = Deno.env.get("HOME") ?? "/tmp";

/**
 * Environment for child processes: quiet Deno, no stray backtraces, and
 * Deno's cache named explicitly, so a test that gives the child another HOME
 * keeps the warm cache (Linux's default location under the real HOME).
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: REAL_HOME,
    DENO_DIR: Deno.env.get("DENO_DIR") || `${REAL_HOME}/.cache/deno`,
    DENO_NO_UPDATE_CHECK: "1",
    RUST_BACKTRACE: "0",
    NO_COLOR: "1",
    ...extra,
  };
}

function cleanEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ""));
}

/** Params of a 2025-era `initialize` request asking for `protocolVersion`. */
export function initializeParams(protocolVersion: string, client = "test") {
  return { protocolVersion, capabilities: {}, clientInfo: { name: client, version: "1" } };
}

/** A server process spoken to with raw JSON-RPC lines. */
export class RawServer {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: string[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly #stderr: Promise<string>;
  readonly #reading: Promise<void>;
  #ended = false;

  constructor(
    script: string = MAIN,
    args: string[] = [],
    env: Record<string, string> = {},
    extraFlags: string[] = [],
  ) {
    const { command, args: argv } = launch(script, args, extraFlags);
    this.#child = new Deno.Command(command, {
      args: argv,
      env: cleanEnv(childEnv(env)),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#stderr = new Response(this.#child.stderr).text();
    this.#reading = this.#read();
  }

  async #read(): Promise<void> {
    const reader = this.#child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        this.#lines.push(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        this.#waiters.splice(0).forEach((w) => w());
      }
    }
    if (buffer) this.#lines.push(buffer);
    this.#ended = true;
    this.#waiters.splice(0).forEach((w) => w());
  }

  /** Writes raw bytes or text. */
  async write(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** Sends one message (object or raw text) as a line. */
  send(message: unknown): Promise<void> {
    return this.write((typeof message === "string" ? message : JSON.stringify(message)) + "\n");
  }

  /** Every line received so far. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Waits for a parsed message matching `predicate`. */
  async waitFor(
    predicate: (msg: Record<string, unknown>) => boolean,
    timeoutMs = 15000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    while (true) {
      for (; seen < this.#lines.length; seen++) {
        const msg = JSON.parse(this.#lines[seen]);
        if (predicate(msg)) return msg;
      }
      if (this.#ended) throw new Error("server output ended before the expected message");
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("timed out waiting for a message");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Sends a request and waits for the reply with its id. */
  async request(message: { id: string | number } & Record<string, unknown>) {
    await this.send({ jsonrpc: "2.0", ...message });
    return await this.waitFor((m) => m.id === message.id && ("result" in m || "error" in m));
  }

  /** Closes stdin and waits for the exit. */
  async close(): Promise<{ code: number; stderr: string; lines: readonly string[] }> {
    await this.#writer.close().catch(() => {});
    const status = await this.#child.status;
    await this.#reading;
    return { code: status.code, stderr: await this.#stderr, lines: this.#lines };
  }

  /** Kills the process. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.#child.status;
    await this.#reading.catch(() => {});
    await this.#stderr.catch(() => {});
  }
}

/** A `serve --http` process on a free port. */
export class HttpServerProcess {
  readonly url: string;
  readonly #child: Deno.ChildProcess;
  readonly #stderr: ReadableStreamDefaultReader<string>;

  private constructor(
    child: Deno.ChildProcess,
    url: string,
    stderr: ReadableStreamDefaultReader<string>,
  ) {
    this.#child = child;
    this.url = url;
    this.#stderr = stderr;
  }

  /**
   * Starts the server and waits for its listening line; `extraFlags` are
   * `deno run` flags beyond the start task's (reading replay fixtures), or
   * beyond `runFlags` (`run` first: a launch line under test).
   */
  static async start(
    script: string = MAIN,
    args: string[] = [],
    env: Record<string, string> = {},
    extraFlags: string[] = [],
    runFlags?: string[],
  ): Promise<HttpServerProcess> {
    const { command, args: argv } = launch(
      script,
      ["serve", "--http", "--port", "0", ...args],
      extraFlags,
      runFlags,
    );
    const child = new Deno.Command(command, {
      args: argv,
      env: cleanEnv(childEnv(env)),
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const m = /serving MCP at (http:\/\/\S+\/mcp)/.exec(text);
      if (m) {
        // Keep draining stderr so the child never blocks on a full pipe.
        const drain = reader;
        (async () => {
          while (!(await drain.read()).done) { /* discard */ }
        })().catch(() => {});
        return new HttpServerProcess(child, m[1], reader);
      }
    }
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`server did not start: ${text}`);
  }

  /** The process id (for reading /proc/<pid>/status). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Its HTTP API's address (`/api`, beside `/mcp`). */
  get api(): string {
    return new URL("/api", this.url).href;
  }

  /** The port it listens on. */
  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Kills it at once (SIGKILL), as a crash would, and waits. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* gone */ }
    await this.#child.status;
    await this.#stderr.cancel().catch(() => {});
  }

  /** Stops it with SIGTERM and waits. */
  async stop(): Promise<number> {
    try {
      this.#child.kill("SIGTERM");
    } catch { /* gone */ }
    const status = await this.#child.status;
    await this.#stderr.cancel().catch(() => {});
    return status.code;
  }
}

/** Runs the CLI to completion and captures its output. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  script: string = MAIN,
  extraFlags: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { command, args: argv } = launch(script, args, extraFlags);
  const out = await new Deno.Command(command, {
    args: argv,
    env: cleanEnv(childEnv(env)),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}
