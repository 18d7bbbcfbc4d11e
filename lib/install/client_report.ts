/**
 * What `doctor` says about MCP clients: which client's configuration holds
 * our entry, whether each entry's launch line is this installation's
 * current one (the Deno it names, the script, the permission flags), and
 * what it grants (headless rendering, the research shelf's storage, the
 * tool-name profile). Files this launch line may not read are named with
 * the flag that lets doctor read them; nothing is written.
 *
 * @module
 */
import { configDir } from "../config.ts";
import { CLIENT_IDS, CLIENT_LABELS, type ClientId } from "./clients.ts";
import { ConfigFileError, readEntry } from "./config_edit.ts";
import { currentInstallation, launchCommand, type LaunchOptions } from "./launch.ts";
import {
  configCandidates,
  configLocation,
  currentOs,
  homeDir,
  type PathContext,
} from "./targets.ts";

/** One line of the report (the shape of doctor's checks). */
export interface ClientCheck {
  /** `client <id>`. */
  check: string;
  /** `ok` (current entry), `warn` (stale or unreadable), `off` (no entry), `fail` (malformed). */
  status: "ok" | "warn" | "off" | "fail";
  /** What was found, what it grants, and what to run. */
  detail: string;
}

function readable(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The argv an entry starts (OpenCode keeps it as one `command` array). */
export function entryArgv(entry: Record<string, unknown>): string[] | undefined {
  const command = entry.command;
  if (Array.isArray(command) && command.every((w) => typeof w === "string")) return command;
  if (typeof command !== "string") return undefined;
  const args = Array.isArray(entry.args) ? entry.args.filter((a) => typeof a === "string") : [];
  return [command, ...args as string[]];
}

/** What a launch line lets the server do beyond reading public pages. */
export function grants(argv: readonly string[]): string {
  const serve = argv.lastIndexOf("serve");
  const after = serve >= 0 ? argv.slice(serve + 1) : [];
  const value = (flag: string) => {
    const i = after.indexOf(flag);
    return i >= 0 ? after[i + 1] : undefined;
  };
  const render = argv.some((a) => a.startsWith("--allow-run="));
  const parts = [
    `rendering ${render ? "on" : "off"}`,
    `shelf ${value("--shelf") ?? "memory"}`,
  ];
  const profile = value("--profile");
  if (profile) parts.push(`profile ${profile}`);
  const output = value("--default-output");
  if (output) parts.push(`output ${output}`);
  return parts.join(", ");
}

/**
 * The launch line this installation would write for the same choices as
 * `argv` (its rendering grant, shelf and server flags read back from it).
 */
function expectedArgv(argv: readonly string[], env: Record<string, unknown>): string[] {
  const serve = argv.lastIndexOf("serve");
  const serverArgs = serve >= 0 ? argv.slice(serve + 1) : [];
  const options: LaunchOptions = {};
  const config = configDir();
  if (config) options.configDir = config;
  const shelf = serverArgs[serverArgs.indexOf("--shelf") + 1];
  if (serverArgs.includes("--shelf") && shelf?.startsWith("kv:")) options.kvPath = shelf.slice(3);
  const run = argv.find((a) => a.startsWith("--allow-run="));
  if (run) {
    const executables = run.slice("--allow-run=".length).split(",");
    const tmpDir = typeof env.TMPDIR === "string" ? env.TMPDIR : "";
    const reads = (argv.find((a) => a.startsWith("--allow-read="))?.slice(13).split(",") ?? [])
      .filter((p) => p !== config && p !== tmpDir && !(options.kvPath?.startsWith(`${p}/`)));
    options.render = { executables, readPaths: reads, tmpDir };
    if (typeof env.PARKOUR_CHROMIUM === "string") options.render.browser = env.PARKOUR_CHROMIUM;
  }
  const line = launchCommand(currentInstallation(), options, serverArgs);
  return [line.command, ...line.args];
}

/** Why an entry's line is not the current one, or undefined when it is. */
export function staleness(
  argv: readonly string[],
  env: Record<string, unknown>,
): string | undefined {
  const want = expectedArgv(argv, env);
  const installation = currentInstallation();
  if (/^(\/|[A-Za-z]:[\\/])/.test(argv[0]) && readable(argv[0]) && !isFile(argv[0])) {
    return `it starts ${argv[0]}, which no longer exists${
      /[\\/]_npx[\\/]/.test(argv[0])
        ? " (npm's cache was cleaned: any npx -y deno@VERSION command puts it back)"
        : ""
    }`;
  }
  // Deno may be named by its PATH entry (`deno`) or its resolved path; both run this Deno.
  const sameDeno = argv[0] === want[0] || argv[0].split(/[\\/]/).pop() === "deno" ||
    (installation.kind === "script" && argv[0] === installation.deno);
  if (!sameDeno) return `it starts ${argv[0]}, this installation ${want[0]}`;
  const have = argv.slice(1);
  const expect = want.slice(1);
  if (installation.kind === "script") {
    const script = installation.script;
    if (!have.includes(script)) {
      const other = have.find((a) => /\.(ts|js)$/.test(a) || a.startsWith("jsr:"));
      return `it runs ${other ?? "another script"}, this installation is ${script}`;
    }
  }
  const missing = expect.filter((a) => !have.includes(a));
  const extra = have.filter((a) => !expect.includes(a));
  if (missing.length === 0 && extra.length === 0) return undefined;
  return [
    missing.length ? `lacks ${missing.join(" ")}` : "",
    extra.length ? `has ${extra.join(" ")}` : "",
  ].filter(Boolean).join("; ");
}

/** The report's client lines for the server entry `name`. */
export function clientChecks(name = "parkour"): ClientCheck[] {
  const env = Deno.env.toObject();
  const ctx: PathContext = { os: currentOs(), home: homeDir(env), env };
  const home = ctx.home.replace(/\/$/, "");
  const tilde = (p: string) => (p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p);
  const checks: ClientCheck[] = [];
  const unreadable: string[] = [];
  const without: string[] = [];
  for (const client of CLIENT_IDS as readonly ClientId[]) {
    const loc = configLocation(client, ctx);
    if ("unavailable" in loc) continue;
    const label = `client ${client}`;
    for (const path of configCandidates(client, ctx)) {
      if (!readable(path)) {
        unreadable.push(path);
        continue;
      }
      let text: string;
      try {
        text = Deno.readTextFileSync(path);
      } catch {
        continue; // no such file
      }
      let entry;
      try {
        entry = readEntry(text, path, loc.format, loc.rootKey, name);
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        checks.push({ check: label, status: "fail", detail: error.message });
        break;
      }
      if (!entry) {
        without.push(CLIENT_LABELS[client]);
        break;
      }
      const argv = entryArgv(entry);
      const envKey = client === "opencode" ? "environment" : "env";
      const entryEnv = (entry[envKey] ?? {}) as Record<string, unknown>;
      if (!argv) {
        checks.push({
          check: label,
          status: "warn",
          detail: `${tilde(path)} has '${name}' without a command; run install --target ${client}`,
        });
        break;
      }
      const stale = staleness(argv, entryEnv);
      checks.push(
        stale
          ? {
            check: label,
            status: "warn",
            detail: `${CLIENT_LABELS[client]}: '${name}' in ${
              tilde(path)
            } is not this installation's current launch line (${stale}); run install --target ${client} (${
              grants(argv)
            })`,
          }
          : {
            check: label,
            status: "ok",
            detail: `${CLIENT_LABELS[client]}: '${name}' in ${
              tilde(path)
            }, launch line current; grants ${grants(argv)}`,
          },
      );
      break;
    }
  }
  if (without.length > 0) {
    checks.push({
      check: "clients without the entry",
      status: "off",
      detail: `${
        without.join(", ")
      } (configured, but not with '${name}'; run install --target ...)`,
    });
  }
  if (checks.length === 0 && without.length === 0) {
    checks.push({
      check: "clients",
      status: "off",
      detail: `no client's configuration has '${name}'${
        unreadable.length ? " among the files this launch line may read" : ""
      } (run install to add it)`,
    });
  }
  if (unreadable.length > 0) {
    checks.push({
      check: "client files",
      status: "warn",
      detail:
        `${unreadable.length} client configuration files are not readable under this launch line (${
          unreadable.slice(0, 3).map(tilde).join(", ")
        }${unreadable.length > 3 ? ", ..." : ""}); to check them, run doctor with --allow-read`,
    });
  }
  return checks;
}
