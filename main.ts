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
  PROFILES,
} from "./lib/config.ts";
import { log, setLogLevel } from "./lib/log.ts";
import { createApp } from "./lib/server/app.ts";
import { TOOLS } from "./lib/tools/catalog.ts";
import type { ToolDefinition } from "./lib/tools/registry.ts";
import { SERVER_NAME, VERSION } from "./lib/version.ts";

/** Exit code for usage errors. */
export const USAGE_EXIT = 2;

interface FlagSpec {
  /** `boolean` flags take no value. */
  kind: "boolean" | "string" | "port" | "choice";
  choices?: readonly string[];
  help: string;
  /** Placeholder shown in help. */
  value?: string;
}

interface CommandSpec {
  summary: string;
  flags: Record<string, FlagSpec>;
  run(flags: Record<string, string | boolean>, options: MainOptions): Promise<number>;
}

/** Options for embedding the CLI. */
export interface MainOptions {
  /** Tools to serve instead of the built-in ones. */
  tools?: readonly ToolDefinition[];
}

class UsageError extends Error {}

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
    },
    run: runServe,
  },
};

const DEFAULT_COMMAND = "serve";

function parseFlags(
  command: string,
  spec: CommandSpec,
  args: string[],
): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      throw new UsageError(
        `unexpected argument '${arg}' for '${command}'; run 'parkour ${command} --help'`,
      );
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const flag = spec.flags[name];
    if (!flag) {
      const valid = Object.keys(spec.flags).join(", ");
      throw new UsageError(`unknown flag '${name}' for '${command}'; valid flags: ${valid}`);
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
    out[name] = value;
  }
  return out;
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
    lines.push("", `Flags of '${name}':`);
    for (const [flag, f] of Object.entries(spec.flags)) {
      const left = f.value ? `${flag} ${f.value}` : flag;
      const choices = f.choices ? ` [${f.choices.join("|")}]` : "";
      lines.push(`  ${left.padEnd(26)}${f.help}${choices}`);
    }
  }
  lines.push(
    "",
    "Environment: PARKOUR_PROFILE, PARKOUR_DEFAULT_OUTPUT, PARKOUR_HTTP_TOKEN,",
    "PARKOUR_HTTP_ALLOWED_ORIGINS, PARKOUR_HTTP_ALLOWED_HOSTS, PARKOUR_LOG (see README).",
  );
  return lines.join("\n");
}

function applySharedFlags(config: Config, flags: Record<string, string | boolean>): Config {
  if (typeof flags["--profile"] === "string") {
    config.profile = flags["--profile"] as Config["profile"];
  }
  if (typeof flags["--default-output"] === "string") {
    config.defaultOutput = flags["--default-output"] as Config["defaultOutput"];
  }
  return config;
}

async function runServe(
  flags: Record<string, string | boolean>,
  options: MainOptions,
): Promise<number> {
  if (!flags["--http"] && (flags["--host"] !== undefined || flags["--port"] !== undefined)) {
    throw new UsageError("--host and --port apply only with --http");
  }
  const config = applySharedFlags(configFromEnv(), flags);
  if (typeof flags["--host"] === "string") config.http.host = flags["--host"];
  if (typeof flags["--port"] === "string") config.http.port = Number(flags["--port"]);
  const app = createApp({ config, tools: options.tools ?? TOOLS });
  if (!flags["--http"]) {
    await app.serveStdio();
    return 0;
  }
  let server;
  try {
    server = app.serveHttp((addr) => {
      const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
      log("info", `serving MCP at http://${host}:${addr.port}/mcp`);
    });
  } catch (error) {
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
      command = args[0];
      rest = args.slice(1);
      if (!(command in COMMANDS)) {
        throw new UsageError(
          `unknown command '${command}'; valid commands: ${Object.keys(COMMANDS).join(", ")}`,
        );
      }
    }
    const spec = COMMANDS[command];
    return await spec.run(parseFlags(command, spec, rest), options);
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
