/**
 * The `parkour` commands: one table, each entry declaring its flags, and a
 * parser that checks every flag and value before anything starts, so a typo
 * ends with a one-line error naming the valid values and exit code 2.
 *
 * `main.ts` loads this module for everything but `--version`. It imports
 * only what the table and the parser need; each command imports its own
 * code when it runs (`serve` the server, `fetch` and `sections` the page
 * tools and the request model, `install` and `doctor` theirs), and `serve`
 * answers its first request before it loads the tools.
 *
 * @module
 */
import {
  CACHE_SCOPE_FLAG,
  CACHE_SCOPE_VARIABLE,
  CACHE_SCOPES,
  ConfigError,
  configFromEnv,
  env,
  PAGE_CEILING_FLAG,
  PAGE_LIMIT_FLAG,
} from "../config.ts";
import type { Flags } from "../flags.ts";
import { log, setLogLevel } from "../log.ts";
import { SERVER_NAME, VERSION } from "../version.ts";
import { CLIENT_IDS } from "../install/clients.ts";
import { dropWanted } from "../install/launch.ts";
import { dropPrivileges } from "../runtime/privileges.ts";
import type { ToolDefinition } from "../tools/registry.ts";
import { cliCommand } from "./invocation.ts";
import {
  applySharedFlags,
  type CommandSpec,
  type FlagSpecs,
  type MainOptions,
  PAGE_CEILING,
  PAGE_LIMIT,
  SHARED_FLAGS,
  USAGE_EXIT,
  UsageError,
} from "./spec.ts";

/** The commands, in help order. */
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
      [CACHE_SCOPE_FLAG]: {
        kind: "choice",
        choices: CACHE_SCOPES,
        value: "SCOPE",
        help:
          `who shares the page cache: shared (default: every user of the service) or principal (each OAuth user apart; ${CACHE_SCOPE_VARIABLE})`,
      },
    },
    run: runServe,
  },
};

/** The page commands' argument. */
const PAGE_TARGET = {
  name: "<url|file>",
  help: "an http(s) URL, a bare host (example.org), or a saved page",
};

COMMANDS.fetch = {
  summary: "read a page (or a local file): the page, a section, search hits, slices or an answer",
  positional: PAGE_TARGET,
  flags: async () => (await import("./page_flags.ts")).FETCH_FLAGS,
  run: async (flags, _options, target) =>
    (await import("./page.ts")).runPageCommand("fetch", flags, target!),
};

COMMANDS.sections = {
  summary: "show a page's outline: its headings with the address --section accepts",
  positional: PAGE_TARGET,
  flags: async () => (await import("./page_flags.ts")).SECTIONS_FLAGS,
  run: async (flags, _options, target) =>
    (await import("./page.ts")).runPageCommand("sections", flags, target!),
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
  run: async (flags) => (await import("../install/install.ts")).runInstall(flags),
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
  run: async (flags) => (await import("../install/install.ts")).runUninstall(flags),
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
  run: async (flags) => (await import("../install/doctor.ts")).runDoctor(flags),
};

/** Other names of commands. */
const ALIASES: Record<string, string> = {
  setup: "install",
  auth: "install",
  remove: "uninstall",
};

const DEFAULT_COMMAND = "serve";

/** A command's flags (importing them for the commands that take the request model's). */
function flagsOf(spec: CommandSpec): Promise<FlagSpecs> {
  return typeof spec.flags === "function" ? spec.flags() : Promise.resolve(spec.flags);
}

async function parseFlags(
  command: string,
  spec: CommandSpec,
  args: string[],
): Promise<{ flags: Flags; positional?: string }> {
  const specs = await flagsOf(spec);
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
    const flag = specs[name];
    if (!flag) {
      const valid = Object.keys(specs);
      const { closestName } = await import("../views/request.ts");
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

async function help(): Promise<string> {
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
    for (const [flag, f] of Object.entries(await flagsOf(spec))) {
      const left = f.value ? `${flag} ${f.value}` : flag;
      const choices = f.choices ? ` [${f.choices.join("|")}]` : "";
      lines.push(`  ${left.padEnd(26)}${f.help}${choices}`);
    }
  }
  lines.push(
    "",
    "Environment: PARKOUR_PROFILE, PARKOUR_DEFAULT_OUTPUT, PARKOUR_TOOLS, PARKOUR_HTTP_TOKEN,",
    "PARKOUR_HTTP_ALLOWED_ORIGINS, PARKOUR_HTTP_ALLOWED_HOSTS, PARKOUR_SHELF, PARKOUR_CACHE,",
    "PARKOUR_CACHE_MB, PARKOUR_CACHE_SCOPE, PARKOUR_MAX_PAGE_MB, PARKOUR_MAX_PAGE_CEILING_MB,",
    "PARKOUR_AUTH_ISSUER, PARKOUR_AUTH_RESOURCE, PARKOUR_LOG",
    "(see docs/configuration.md).",
  );
  return lines.join("\n");
}

/** The shipped tools, imported when the server first needs them. */
async function shippedTools(): Promise<readonly ToolDefinition[]> {
  return (await import("../tools/catalog.ts")).TOOLS;
}

/**
 * What a server that gives up read permission imports before it does: the
 * server, the tools, and what their first calls import (the envelope's YAML,
 * the tokenizer, the page converter). Rarer parts imported on first use (the
 * PDF reader, the code-outline grammars) are read from the program's own
 * bundle in a binary, and need read permission in a script run.
 */
async function importBeforeDrop(definitions: () => Promise<unknown>): Promise<void> {
  const [, , , , , , envelope, tokens] = await Promise.all([
    import("../server/core.ts"),
    import("../server/stdio.ts"),
    import("../server/app.ts"),
    import("../server/mcp.ts"),
    import("../content/pipeline.ts"),
    definitions(),
    import("../envelope/frontmatter.ts"),
    import("../content/tokens/count.ts"),
    // Loaded by the page reader at the first render (lib/views/read.ts).
    import("../render/document.ts"),
  ]);
  await Promise.all([envelope.envelopeReady(), tokens.tokenizerReady()]);
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
  // A shelf store that is named opens now (a bad value fails here, and a file opens before
  // permissions are dropped); the default, in memory, opens with the tools.
  const shelfFlag = typeof flags["--shelf"] === "string" ? flags["--shelf"] : undefined;
  const shelfValue = shelfFlag ?? env("PARKOUR_SHELF");
  let shelfOpen = false;
  const openShelf = async () => {
    const shelf = await import("../shelf/mod.ts");
    const spec = shelf.parseShelfSpec(shelfValue, shelfFlag ? "--shelf" : "PARKOUR_SHELF");
    await shelf.openShelf(spec, config.profile);
    shelfOpen = true;
  };
  // HTTP opens the default shelf now too: its start is not what a client waits for.
  if (shelfValue || flags["--http"]) await openShelf();
  const closeShelf = async () => {
    // Writes are committed transactions; closing releases the KV file's lock promptly.
    if (shelfOpen) (await import("../shelf/mod.ts")).currentShelf().store.close();
  };
  // The same for the page cache: only a shared one (redis://...) has anything to open.
  const cacheFlag = typeof flags["--cache"] === "string" ? flags["--cache"] : undefined;
  const cacheValue = cacheFlag ?? env("PARKOUR_CACHE");
  let sharedCache: { close(): Promise<void> } | undefined;
  if (cacheValue) {
    const { openSharedStore, parseCacheSpec } = await import("../net/open_store.ts");
    sharedCache = await openSharedStore(
      parseCacheSpec(cacheValue, cacheFlag ? "--cache" : "PARKOUR_CACHE"),
    ).catch((error) => {
      throw new UsageError((error as Error).message);
    });
  }
  const definitions = options.tools ? () => Promise.resolve(options.tools!) : shippedTools;
  // A binary's baked flags cover install and doctor too: the server gives up what it does not use.
  // Modules are imported when first used (deno.json's lazy-dynamic-imports), and a file imported
  // after read is revoked cannot be: what serving uses is imported first.
  if (dropWanted()) {
    await importBeforeDrop(definitions);
    dropPrivileges();
  }
  if (!flags["--http"]) {
    const [{ configuredTools, createMcpCore, loadServed }, { serveStdio }] = await Promise.all([
      import("../server/core.ts"),
      import("../server/stdio.ts"),
    ]);
    const core = createMcpCore({
      load: () =>
        loadServed(
          configuredTools(config, definitions, { prepare: shelfOpen ? undefined : openShelf }),
        ),
    });
    // A tool selection is checked before serving: a bad one fails at start, with exit code 2.
    if (config.tools !== undefined) await core.served();
    // A person who started the server by hand learns what it is and what to do instead.
    if (Deno.stdin.isTerminal()) {
      const { palette, serveBanner } = await import("./terminal.ts");
      console.error(serveBanner(
        { name: SERVER_NAME, version: VERSION, command: cliCommand() },
        palette(Deno.stderr.isTerminal(), env("NO_COLOR")),
      ));
    }
    await serveStdio({
      modern: core.handler,
      legacy: core.legacy,
      complete: core.complete,
      onFirstAnswer: core.prefetch,
    });
    await closeShelf();
    await sharedCache?.close();
    return 0;
  }
  const { createApp } = await import("../server/app.ts");
  const app = createApp({ config, tools: definitions });
  if (config.tools !== undefined) await app.tools();
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
  await closeShelf();
  await sharedCache?.close();
  return 0;
}

/** Runs the CLI with `args` (`--version` is main.ts's own); resolves to the exit code. */
export async function runCli(args: string[], options: MainOptions = {}): Promise<number> {
  setLogLevel(env("PARKOUR_LOG"));
  try {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(await help());
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
    const parsed = await parseFlags(command, spec, rest);
    return await spec.run(parsed.flags, options, parsed.positional);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`parkour: ${error.message}`);
      return USAGE_EXIT;
    }
    throw error;
  }
}
