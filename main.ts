/**
 * The `parkour` command line.
 *
 * ```sh
 * parkour                      # MCP on stdio (same as `parkour serve`)
 * parkour serve --http --port 8765
 * parkour --version
 * ```
 *
 * Subcommands are entries of one table: each declares its flags, and the
 * parser checks every flag and value before anything starts, so a typo ends
 * with a one-line error naming the valid values and exit code 2.
 *
 * @module
 */
import {
  type Config,
  ConfigError,
  configFromEnv,
  env,
  OUTPUT_FORMATS,
  PAGE_CEILING_FLAG,
  PAGE_CEILING_VARIABLE,
  PAGE_LIMIT_FLAG,
  PAGE_LIMIT_VARIABLE,
  pageCeilingBytes,
  parseMegabytes,
  PROFILES,
  setPageCeilingBytes,
  setPageMaxBytes,
} from "./lib/config.ts";
import type { Flags } from "./lib/flags.ts";
import { log, setLogLevel } from "./lib/log.ts";
import { createApp } from "./lib/server/app.ts";
import { TOOLS } from "./lib/tools/catalog.ts";
import { toolContext, type ToolDefinition, ToolRegistry } from "./lib/tools/registry.ts";
import { runIncisive } from "./lib/tools/web_fetch_incisive.ts";
import { runSections } from "./lib/tools/web_fetch_sections.ts";
import { type Loader, webLoader } from "./lib/tools/page_view.ts";
import type { HintContext } from "./lib/hint.ts";
import type { ViewResult } from "./lib/views/view.ts";
import {
  closestName,
  fromText,
  OUTLINE_FIELDS,
  OUTLINE_KEYS,
  outlineRequestSchema,
  PAGE_FIELDS,
  PAGE_KEYS,
  pageRequestSchema,
  param,
  paramName,
  parseWith,
  renderParams,
  RequestError,
  TEXT_KINDS,
} from "./lib/views/request.ts";
import { currentInstallation } from "./lib/install/launch.ts";
import { shellQuote } from "./lib/shell.ts";
import { isFileArgument } from "./lib/sources/file/argument.ts";
import { parseFences } from "./lib/envelope/fence.ts";
import { envelopeReady, parseFrontmatter } from "./lib/envelope/frontmatter.ts";
import type { ToolResult } from "./lib/envelope/response.ts";
import { toolFailure } from "./lib/server/mcp.ts";
import { currentShelf, openShelf, parseShelfSpec } from "./lib/shelf/mod.ts";
import { openSharedStore, parseCacheSpec } from "./lib/net/shared.ts";
import { SERVER_NAME, VERSION } from "./lib/version.ts";
import { CLIENT_IDS } from "./lib/install/clients.ts";
import { dropPrivileges, dropWanted } from "./lib/install/privileges.ts";
import { palette, progress, serveBanner, textReport } from "./lib/terminal.ts";

/** Exit code for usage errors. */
export const USAGE_EXIT = 2;

interface FlagSpec {
  /** The request field the flag sets, for the view commands. */
  key?: string;
  /** `boolean` flags take no value. */
  kind: "boolean" | "string" | "port" | "choice" | "int";
  choices?: readonly string[];
  help: string;
  /** Placeholder shown in help. */
  value?: string;
  /** May be given several times (values collect in a list). */
  repeatable?: boolean;
}

export type { Flags };

interface CommandSpec {
  summary: string;
  /** One positional argument, if the command takes one. */
  positional?: { name: string; help: string };
  flags: Record<string, FlagSpec>;
  run(flags: Flags, options: MainOptions, positional?: string): Promise<number>;
}

/** Options for embedding the CLI. */
export interface MainOptions {
  /** Tools to serve instead of the built-in ones. */
  tools?: readonly ToolDefinition[];
}

/** A bad command line: printed as one line, exit code 2. */
export class UsageError extends Error {}

const SHARED_FLAGS: Record<string, FlagSpec> = {
  "--profile": {
    kind: "choice",
    choices: PROFILES,
    value: "NAME",
    help: "tool names: desktop (snake_case, default) or code (PascalCase)",
  },
  "--default-output": {
    kind: "choice",
    choices: OUTPUT_FORMATS,
    value: "FORMAT",
    help: "format of record-shaped results (default markdown)",
  },
  "--tools": {
    kind: "string",
    value: "LIST",
    help:
      "tools to list, comma-separated: groups (web, scholarly, code, community, search, shelf) or tool names (default all; PARKOUR_TOOLS)",
  },
};

/** The page size limit, for the commands that read pages. */
const PAGE_LIMIT: FlagSpec = {
  kind: "string",
  value: "MIB",
  help: `largest page read, decoded, in MiB, for every view (default 50; ${PAGE_LIMIT_VARIABLE})`,
};

/** The ceiling of a call's own page limit (max_page_mb), for the server. */
const PAGE_CEILING: FlagSpec = {
  kind: "string",
  value: "MIB",
  help:
    `largest page a call may ask for with max_page_mb, in MiB (default 200 or the page limit, if higher; ${PAGE_CEILING_VARIABLE})`,
};

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    summary: "run the MCP server (stdio by default, or Streamable HTTP)",
    flags: {
      "--http": { kind: "boolean", help: "serve Streamable HTTP at /mcp instead of stdio" },
      "--host": {
        kind: "string",
        value: "ADDR",
        help: "address to bind with --http (default 127.0.0.1; others need PARKOUR_HTTP_TOKEN)",
      },
      "--port": {
        kind: "port",
        value: "N",
        help: "port with --http (default 8765; 0 = any free port)",
      },
      ...SHARED_FLAGS,
      [PAGE_LIMIT_FLAG]: PAGE_LIMIT,
      [PAGE_CEILING_FLAG]: PAGE_CEILING,
      "--shelf": {
        kind: "string",
        value: "STORE",
        help:
          "research shelf storage: memory (default), kv or kv:PATH (Deno KV, kept across restarts), postgres://... (shared by replicas)",
      },
      "--cache": {
        kind: "string",
        value: "STORE",
        help:
          "page cache shared by replicas: memory (default: this process only) or redis://host:port",
      },
    },
    run: runServe,
  },
};

const PAGE_FORMAT: FlagSpec = {
  kind: "choice",
  choices: ["text", "envelope", "markdown", "json"],
  value: "FORMAT",
  help:
    "text (for a person: no margins, outlines as a tree; the default on a terminal), envelope (what MCP clients get; the default into a pipe), markdown (the page text only) or json",
};

/** Parameter names inside the request model's descriptions, to spell them as flags. */
const FIELD_NAME = new RegExp(`\\b(${PAGE_KEYS.filter((k) => k !== "url").join("|")})\\b`, "g");

/** Help text of the view flags (the request model's descriptions, in CLI words). */
function viewFlags(keys: readonly string[], fields: Record<string, { description?: string }>) {
  const flags: Record<string, FlagSpec> = {};
  for (const key of keys) {
    if (key === "url") continue;
    const kind = TEXT_KINDS[key];
    const help = renderParams(
      (fields[key].description ?? "").replace(FIELD_NAME, (k) => param(k)),
      "cli",
    );
    const value = kind === "ints"
      ? "N,M"
      : kind === "json"
      ? "JSON"
      : kind === "int"
      ? "N"
      : "TEXT";
    flags[paramName("cli", key)] = kind === "boolean"
      ? { kind: "boolean", help, key }
      : { kind: "string", value, help, key, repeatable: kind === "strings" };
  }
  return flags;
}

COMMANDS.fetch = {
  summary: "read a page (or a local file): the page, a section, search hits, slices or an answer",
  positional: {
    name: "<url|file>",
    help: "an http(s) URL, a bare host (example.org), or a saved page",
  },
  flags: {
    ...viewFlags(PAGE_KEYS, PAGE_FIELDS),
    "--format": PAGE_FORMAT,
    "--profile": SHARED_FLAGS["--profile"],
    [PAGE_LIMIT_FLAG]: PAGE_LIMIT,
  },
  run: (flags, _options, target) => runPageCommand("fetch", flags, target!),
};

COMMANDS.sections = {
  summary: "show a page's outline: its headings with the address --section accepts",
  positional: {
    name: "<url|file>",
    help: "an http(s) URL, a bare host (example.org), or a saved page",
  },
  flags: {
    ...viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS),
    "--slice": {
      ...viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS)["--slice"],
      value: "N|all",
      help: `${
        viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS)["--slice"].help
      }; all: the whole outline in one window`,
    },
    "--format": PAGE_FORMAT,
    "--profile": SHARED_FLAGS["--profile"],
    [PAGE_LIMIT_FLAG]: PAGE_LIMIT,
  },
  run: (flags, _options, target) => runPageCommand("sections", flags, target!),
};

COMMANDS.install = {
  summary: "add this server to MCP clients' configuration (aliases: setup, auth)",
  flags: {
    "--target": {
      kind: "choice",
      choices: CLIENT_IDS,
      value: "CLIENT",
      repeatable: true,
      help: "a client to configure (repeatable)",
    },
    "--all": {
      kind: "boolean",
      help: "every client found on this machine (with --force: every client this OS has)",
    },
    "--force": {
      kind: "boolean",
      help: "with --all or --target: configure clients that do not look installed here too",
    },
    "--dry-run": {
      kind: "boolean",
      help: "print each file it would write and command it would run; change nothing",
    },
    "--server-name": {
      kind: "string",
      value: "NAME",
      help: "the server's name in the client's configuration (default parkour)",
    },
    ...SHARED_FLAGS,
    "--shelf": {
      kind: "string",
      value: "STORE",
      help: "research shelf of the installed server: memory (default), kv or kv:PATH",
    },
    "--render": {
      kind: "boolean",
      help: "grant what headless rendering needs (finds Chromium; fails if there is none)",
    },
  },
  run: async (flags) => (await import("./lib/install/install.ts")).runInstall(flags),
};

COMMANDS.uninstall = {
  summary: "take this server's entry out of MCP clients' configuration (alias: remove)",
  flags: {
    "--target": {
      kind: "choice",
      choices: CLIENT_IDS,
      value: "CLIENT",
      repeatable: true,
      help: "a client to remove the entry from (repeatable)",
    },
    "--all": { kind: "boolean", help: "every client whose configuration has the entry" },
    "--dry-run": {
      kind: "boolean",
      help: "print each file it would change and command it would run; change nothing",
    },
    "--server-name": {
      kind: "string",
      value: "NAME",
      help: "the server's name in the client's configuration (default parkour)",
    },
  },
  run: async (flags) => (await import("./lib/install/install.ts")).runUninstall(flags),
};

COMMANDS.doctor = {
  summary: "report which optional parts work here (never prints secrets)",
  flags: {
    "--format": {
      kind: "choice",
      choices: ["text", "json"],
      value: "FORMAT",
      help: "text (default) or json",
    },
  },
  run: async (flags) => (await import("./lib/install/doctor.ts")).runDoctor(flags),
};

/** Other names of commands. */
const ALIASES: Record<string, string> = {
  setup: "install",
  auth: "install",
  remove: "uninstall",
};

const DEFAULT_COMMAND = "serve";

/** Loads URLs from the web and anything else from the file system (CLI only). */
const cliLoader: Loader = async (url, options) => {
  if (isFileArgument(url)) {
    const { readFileDocument } = await import("./lib/sources/file/mod.ts");
    return { doc: await readFileDocument(url, { fullPage: options.fullPage }), cached: false };
  }
  return await webLoader(url, options);
};

/** How the person runs this command line, for the commands hints show. */
export function cliCommand(): string {
  const named = env("PARKOUR_CLI");
  if (named) return named;
  const installation = currentInstallation();
  if (installation.kind === "binary") {
    return installation.path.split(/[\\/]/).pop() || "parkour";
  }
  const script = installation.script;
  const deno = installation.deno === "npx" ? `npx ${installation.denoArgs.join(" ")}` : "deno";
  if (script.startsWith("jsr:")) return `${deno} run -A ${script}`;
  const dir = script.replace(/[\\/][^\\/]*$/, "");
  // Under `deno task`, INIT_CWD is where the person typed the command.
  const here = invokedFrom();
  return here === dir || here.startsWith(`${dir}/`)
    ? `${deno} task`
    : `${deno} task --config ${shellQuote(`${dir}/deno.json`)}`;
}

/** The folder the person ran the command in (`deno task` runs tasks in deno.json's folder). */
function invokedFrom(): string {
  const init = env("INIT_CWD");
  if (init?.startsWith("/") || (init && /^[A-Za-z]:[\\/]/.test(init))) return init;
  try {
    return Deno.cwd();
  } catch {
    return "";
  }
}

/** The request a page command's flags make, checked by the request schema. */
function pageInput(flags: Flags, keys: readonly string[], url: string): Record<string, unknown> {
  const input: Record<string, unknown> = { url };
  for (const key of keys) {
    const value = flags[paramName("cli", key)];
    if (value === undefined) continue;
    if (value === true) input[key] = true;
    else input[key] = fromText(key, Array.isArray(value) ? value : [String(value)]);
  }
  return input;
}

/** Endings of saved pages: a bare `page.html` is a file, never the host `page.html`. */
const FILE_ENDINGS =
  /\.(?:html?|xhtml|md|markdown|txt|text|pdf|json|xml|rss|atom|csv|ya?ml|toml|rst|adoc)$/i;

/** The page a command-line target names: a URL, a file, or a bare host read as https. */
function pageTarget(target: string): { url: string; note?: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return { url: target };
  const base = invokedFrom();
  const path = target.startsWith("/") ? target : `${base}/${target}`;
  const looksLikeHost = /^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#].*)?$/i.test(target) &&
    !FILE_ENDINGS.test(target.replace(/[?#].*$/, ""));
  if (looksLikeHost) {
    let exists = false;
    try {
      Deno.statSync(path);
      exists = true;
    } catch { /* not a file here */ }
    if (!exists) return { url: `https://${target}`, note: `reading https://${target}` };
  }
  return { url: new URL(`file://${path}`).href };
}

async function runPageCommand(
  kind: "fetch" | "sections",
  flags: Flags,
  target: string,
): Promise<number> {
  await envelopeReady();
  const config = applySharedFlags(configFromEnv(), flags);
  const registry = new ToolRegistry(TOOLS, config.profile);
  const ctx = toolContext({
    registry,
    defaultOutput: config.defaultOutput,
    signal: new AbortController().signal,
  });
  const { url, note } = pageTarget(target);
  if (note) console.error(note);
  const hints: HintContext = { face: "cli", command: cliCommand(), target };
  // `--slice all`: the whole outline in one window.
  const whole = flags["--slice"] === "all";
  const viewFlags: Flags = { ...flags };
  if (whole) delete viewFlags["--slice"];
  const shown = url.startsWith("file:") ? target : url;
  const working = progress(`reading ${shown}`);
  let result: ToolResult;
  try {
    if (kind === "sections") {
      const args = parseWith(outlineRequestSchema, pageInput(viewFlags, OUTLINE_KEYS, url));
      result = await runSections(
        args,
        ctx,
        cliLoader,
        hints,
        whole ? Number.MAX_SAFE_INTEGER : undefined,
      );
    } else {
      // Conflicting views are refused by the tool before anything is read (a usage error here).
      const args = parseWith(pageRequestSchema, pageInput(viewFlags, PAGE_KEYS, url));
      result = await runIncisive(args, ctx, cliLoader, hints);
    }
  } catch (error) {
    if (error instanceof RequestError) throw new UsageError(error.forFace("cli"));
    if (error instanceof UsageError) throw error;
    result = toolFailure(kind === "fetch" ? "fetch" : "sections", error, "cli");
  } finally {
    working.stop();
  }
  const text = result.content[0]?.text ?? "";
  const format = typeof flags["--format"] === "string"
    ? flags["--format"]
    : Deno.stdout.isTerminal()
    ? "text"
    : "envelope";
  const meta = parseFrontmatter(text);
  const v = (result as { view?: ViewResult }).view;
  const fences = meta?.fence ? parseFences(text, String(meta.fence)) : [];
  if (format === "json") {
    // The outline as the list of its sections; any other answer as frontmatter and contents.
    const outline = !result.isError && v?.outline ? v.outline.entries : undefined;
    console.log(JSON.stringify(
      {
        error: result.isError === true,
        frontmatter: meta ?? {},
        ...(outline ? { sections: outline } : { content: fences.map((f) => f.lines.join("\n")) }),
        text: meta ? undefined : text,
      },
      null,
      2,
    ));
  } else if (format === "markdown" && !result.isError) {
    // The page text alone: the view's body (and the closest names of sections not found).
    const parts = v ? [v.body, v.extra?.content ?? ""].filter(Boolean) : [];
    console.log(
      v
        ? parts.join("\n\n")
        : fences.length
        ? fences.map((f) => f.lines.join("\n")).join("\n\n")
        : text,
    );
    // Stdout stays the page text; how to read on (a cut page, more windows) goes to stderr.
    if (meta?.truncated === true || meta?.total_slices !== undefined) {
      for (const line of [meta.hint ?? []].flat()) console.error(`next: ${line}`);
    }
  } else if (format === "text") {
    const out = result.isError ? Deno.stderr : Deno.stdout;
    const colour = palette(out.isTerminal(), env("NO_COLOR"));
    if (!meta) (result.isError ? console.error : console.log)(colour.red(text));
    else {
      const report = textReport(
        {
          meta,
          contents: fences.map((f) => f.lines.join("\n")),
          entries: v?.outline?.entries,
          shownSource: url.startsWith("file:") ? target : undefined,
        },
        { colour, columns: terminalColumns() },
      );
      (result.isError ? console.error : console.log)(report);
    }
  } else {
    (result.isError ? console.error : console.log)(text);
  }
  if (result.isError) return 1;
  // Nothing of what was asked exists: not a success.
  const notFound = meta?.sections_not_found !== undefined && meta?.sections_returned === undefined;
  const noSlice = meta?.slices_not_found !== undefined && meta?.slices === undefined;
  return notFound || noSlice ? 1 : 0;
}

/** The terminal's width, or 100 when stdout is not a terminal. */
function terminalColumns(): number {
  try {
    const columns = Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 0;
    // A pseudo-terminal may report no size at all.
    return columns >= 40 ? columns : 100;
  } catch {
    return 100;
  }
}

function parseFlags(
  command: string,
  spec: CommandSpec,
  args: string[],
): { flags: Flags; positional?: string } {
  const out: Flags = {};
  let positional: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      if (spec.positional && positional === undefined) {
        positional = arg;
        continue;
      }
      throw new UsageError(
        `unexpected argument '${arg}' for '${command}'; run '${cliCommand()} ${command} --help'`,
      );
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const flag = spec.flags[name];
    if (!flag) {
      const valid = Object.keys(spec.flags);
      const close = closestName(name, valid);
      throw new UsageError(
        close
          ? `unknown flag '${name}' for '${command}'; did you mean '${close}'?`
          : `unknown flag '${name}' for '${command}'; valid flags: ${valid.join(", ")}`,
      );
    }
    if (flag.kind === "boolean") {
      if (eq >= 0) throw new UsageError(`flag '${name}' takes no value`);
      out[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < args.length && !args[i + 1].startsWith("--")) value = args[++i];
    if (value === undefined || value === "") {
      const hint = flag.choices ? `; valid values: ${flag.choices.join(", ")}` : "";
      throw new UsageError(`flag '${name}' needs a value${hint}`);
    }
    if (flag.kind === "choice" && !flag.choices!.includes(value)) {
      throw new UsageError(
        `invalid ${name} '${value}'; valid values: ${flag.choices!.join(", ")}`,
      );
    }
    if (flag.kind === "port") {
      const port = Number(value);
      if (!/^\d+$/.test(value) || port > 65535) {
        throw new UsageError(`invalid ${name} '${value}'; valid values: 0-65535`);
      }
    }
    if (flag.kind === "int" && !/^-?\d{1,9}$/.test(value)) {
      throw new UsageError(`invalid ${name} '${value}'; valid values: whole numbers`);
    }
    if (flag.repeatable) {
      const list = (out[name] as string[] | undefined) ?? [];
      list.push(value);
      out[name] = list;
    } else out[name] = value;
  }
  if (spec.positional && positional === undefined) {
    throw new UsageError(
      `'${command}' needs ${spec.positional.name}; run '${cliCommand()} ${command} --help'`,
    );
  }
  return { flags: out, positional };
}

function help(): string {
  const lines = [
    `${SERVER_NAME} ${VERSION}: precise web reading for LLM agents, as an MCP server`,
    "",
    "Usage: parkour [COMMAND] [FLAGS]",
    "",
    "Commands:",
  ];
  for (const [name, spec] of Object.entries(COMMANDS)) {
    lines.push(
      `  ${name.padEnd(10)}${spec.summary}${name === DEFAULT_COMMAND ? " (default)" : ""}`,
    );
  }
  lines.push(
    "",
    "Global flags:",
    "  --help, -h      show this help",
    "  --version, -V   print the version",
  );
  for (const [name, spec] of Object.entries(COMMANDS)) {
    const usage = spec.positional ? ` ${spec.positional.name}` : "";
    lines.push(
      "",
      `parkour ${name}${usage}${spec.positional ? `  (${spec.positional.help})` : ""}`,
    );
    for (const [flag, f] of Object.entries(spec.flags)) {
      const left = f.value ? `${flag} ${f.value}` : flag;
      const choices = f.choices ? ` [${f.choices.join("|")}]` : "";
      lines.push(`  ${left.padEnd(26)}${f.help}${choices}`);
    }
  }
  lines.push(
    "",
    "Environment: PARKOUR_PROFILE, PARKOUR_DEFAULT_OUTPUT, PARKOUR_TOOLS, PARKOUR_HTTP_TOKEN,",
    "PARKOUR_HTTP_ALLOWED_ORIGINS, PARKOUR_HTTP_ALLOWED_HOSTS, PARKOUR_SHELF, PARKOUR_CACHE,",
    "PARKOUR_CACHE_MB, PARKOUR_MAX_PAGE_MB, PARKOUR_MAX_PAGE_CEILING_MB, PARKOUR_AUTH_ISSUER,",
    "PARKOUR_AUTH_RESOURCE, PARKOUR_LOG",
    "(see docs/configuration.md).",
  );
  return lines.join("\n");
}

function applySharedFlags(config: Config, flags: Flags): Config {
  if (typeof flags["--profile"] === "string") {
    config.profile = flags["--profile"] as Config["profile"];
  }
  if (typeof flags["--default-output"] === "string") {
    config.defaultOutput = flags["--default-output"] as Config["defaultOutput"];
  }
  applyPageLimit(flags);
  return config;
}

/** The page limit and its ceiling from their flags, then checked (a bad value fails at start). */
function applyPageLimit(flags: Flags): void {
  for (
    const [flag, set, example] of [
      [PAGE_LIMIT_FLAG, setPageMaxBytes, 50],
      [PAGE_CEILING_FLAG, setPageCeilingBytes, 200],
    ] as const
  ) {
    const value = flags[flag];
    if (typeof value !== "string") continue;
    const bytes = parseMegabytes(value);
    if (bytes === undefined) {
      throw new UsageError(`invalid ${flag} '${value}'; give a size in MiB, such as ${example}`);
    }
    set(bytes);
  }
  pageCeilingBytes();
}

async function runServe(flags: Flags, options: MainOptions): Promise<number> {
  if (!flags["--http"] && (flags["--host"] !== undefined || flags["--port"] !== undefined)) {
    throw new UsageError("--host and --port apply only with --http");
  }
  const config = applySharedFlags(configFromEnv(), flags);
  if (typeof flags["--host"] === "string") config.http.host = flags["--host"];
  if (typeof flags["--port"] === "string") config.http.port = Number(flags["--port"]);
  if (typeof flags["--tools"] === "string") {
    config.tools = flags["--tools"];
    config.toolsFrom = "--tools";
  }
  const shelfFlag = typeof flags["--shelf"] === "string" ? flags["--shelf"] : undefined;
  await openShelf(
    parseShelfSpec(shelfFlag ?? env("PARKOUR_SHELF"), shelfFlag ? "--shelf" : "PARKOUR_SHELF"),
    config.profile,
  );
  const cacheFlag = typeof flags["--cache"] === "string" ? flags["--cache"] : undefined;
  const sharedCache = await openSharedStore(
    parseCacheSpec(cacheFlag ?? env("PARKOUR_CACHE"), cacheFlag ? "--cache" : "PARKOUR_CACHE"),
  ).catch((error) => {
    throw new UsageError((error as Error).message);
  });
  // A binary's baked flags cover install and doctor too: the server gives up what it does not use.
  if (dropWanted()) dropPrivileges();
  const app = createApp({ config, tools: options.tools ?? TOOLS });
  if (!flags["--http"]) {
    // A person who started the server by hand learns what it is and what to do instead.
    if (Deno.stdin.isTerminal()) {
      console.error(serveBanner(
        { name: SERVER_NAME, version: VERSION, command: cliCommand() },
        palette(Deno.stderr.isTerminal(), env("NO_COLOR")),
      ));
    }
    await app.serveStdio();
    currentShelf().store.close();
    await sharedCache?.close();
    return 0;
  }
  let server;
  try {
    server = app.serveHttp((addr) => {
      const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
      log("info", `serving MCP at http://${host}:${addr.port}/mcp`);
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      throw new UsageError(
        `this launch line may not bind ${config.http.host}:${config.http.port} (${
          (error as Error).message.replace(/, run again.*$/, "")
        }); the stdio line denies loopback at the socket: start HTTP with 'deno task serve:http', whose --deny-net leaves loopback and 0.0.0.0 out`,
      );
    }
    throw new UsageError((error as Error).message);
  }
  const stop = () => {
    log("info", "shutting down");
    server.shutdown();
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
  await app.handler.close();
  // Writes are committed transactions; closing releases the KV file's lock promptly.
  currentShelf().store.close();
  await sharedCache?.close();
  return 0;
}

/** Runs the CLI with `args`; resolves to the exit code. */
export async function main(args: string[], options: MainOptions = {}): Promise<number> {
  setLogLevel(env("PARKOUR_LOG"));
  try {
    if (args.includes("--version") || args.includes("-V")) {
      console.log(`${SERVER_NAME} ${VERSION}`);
      return 0;
    }
    if (args.includes("--help") || args.includes("-h")) {
      console.log(help());
      return 0;
    }
    let command = DEFAULT_COMMAND;
    let rest = args;
    if (args.length > 0 && !args[0].startsWith("-")) {
      command = ALIASES[args[0]] ?? args[0];
      rest = args.slice(1);
      if (!(command in COMMANDS)) {
        throw new UsageError(
          `unknown command '${command}'; valid commands: ${Object.keys(COMMANDS).join(", ")}`,
        );
      }
    }
    const spec = COMMANDS[command];
    const parsed = parseFlags(command, spec, rest);
    return await spec.run(parsed.flags, options, parsed.positional);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`parkour: ${error.message}`);
      return USAGE_EXIT;
    }
    throw error;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
