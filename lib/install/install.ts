/**
 * The `install` command (alias `setup`): adds this installation's launch
 * line to MCP clients' configuration. Each client's file is edited in
 * place (other servers, settings and comments stay), written atomically
 * with a backup; Claude Code is configured through its `claude` command
 * when that is on PATH. `--dry-run` prints what would be written or run.
 *
 * @module
 */
import { checkToolSelection } from "../tools/groups.ts";
import type { Flags } from "../flags.ts";
import { configDir, ConfigError, MUTATING_FLAG } from "../config.ts";
import { SYSTEM_CHROMIUM } from "../render/browser.ts";
import { CLIENT_IDS, CLIENT_LABELS, type ClientId } from "./clients.ts";
import {
  ConfigFileError,
  editJson,
  type EditResult,
  editToml,
  removeJson,
  removeToml,
  writeAtomic,
} from "./config_edit.ts";
import {
  commandLine,
  currentInstallation,
  type Installation,
  type LaunchCommand,
  launchCommand,
  type LaunchOptions,
  parentDir,
  shellQuote,
} from "./launch.ts";
import {
  appConfigRoot,
  clientEntry,
  type ConfigFile,
  configLocation,
  currentOs,
  homeDir,
  type Os,
  type PathContext,
} from "./targets.ts";

/** The outcome for one client. */
interface Outcome {
  client: ClientId;
  status: "ok" | "skipped" | "failed";
  detail: string;
  /** Extra lines shown under the outcome (the entry, commands). */
  more?: string[];
  /** Whether a client's configuration was changed. */
  changed?: boolean;
}

const NO_CLIENT =
  "no client chosen; try `parkour install --target cursor`, repeat --target for more clients, or use --all";

const OS_NAMES: Record<Os, string> = { linux: "Linux", darwin: "macOS", windows: "Windows" };

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function isExecutable(path: string, os: Os): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && (os === "windows" || ((info.mode ?? 0o111) & 0o111) !== 0);
  } catch {
    return false;
  }
}

/** The first executable named `name` on PATH. */
function onPath(name: string, env: Record<string, string | undefined>, os: Os): string | undefined {
  const sep = os === "windows" ? ";" : ":";
  const exts = os === "windows" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of (env.PATH ?? "").split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const path = `${dir.replace(/[\\/]$/, "")}${os === "windows" ? "\\" : "/"}${name}${ext}`;
      if (isExecutable(path, os)) return path;
    }
  }
  return undefined;
}

function absolute(path: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) path = home + path.slice(1);
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) return normalise(path);
  return normalise(`${Deno.cwd()}/${path}`);
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.length > 1 && out.pop();
    else if (part !== "." && (part !== "" || out.length === 0)) out.push(part);
  }
  return out.join("/") || "/";
}

/** Chromium's executables and the paths it must read, or undefined when none is installed. */
function findChromium(
  os: Os,
  home: string,
  env: Record<string, string | undefined>,
): { executables: string[]; readPaths: string[] } | undefined {
  if (os === "darwin") {
    const apps = [
      "Chromium.app/Contents/MacOS/Chromium",
      "Google Chrome.app/Contents/MacOS/Google Chrome",
    ];
    for (const root of ["/Applications", `${home}/Applications`]) {
      for (const app of apps) {
        const path = `${root}/${app}`;
        if (isExecutable(path, os)) {
          return { executables: [path], readPaths: [path.slice(0, path.indexOf(".app/") + 4)] };
        }
      }
    }
  }
  if (os === "linux") {
    // Debian: /usr/bin/chromium is a wrapper script starting /usr/lib/chromium/chromium.
    const [wrapper, binary] = SYSTEM_CHROMIUM;
    const w = isExecutable(wrapper, os);
    const b = isExecutable(binary, os);
    if (w || b) {
      return {
        executables: [...(w ? [wrapper] : []), ...(b ? [binary] : [])],
        readPaths: [...(w ? [wrapper] : []), ...(b ? [parentDir(binary)] : [])],
      };
    }
  }
  const names = os === "windows"
    ? ["chrome", "msedge"]
    : ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];
  for (const name of names) {
    const path = onPath(name, env, os);
    if (!path) continue;
    let real = path;
    try {
      real = Deno.realPathSync(path);
    } catch { /* keep the PATH entry */ }
    const executables = [...new Set([path, real])];
    return { executables, readPaths: [...new Set([path, parentDir(real)])] };
  }
  return undefined;
}

const CHROMIUM_HELP =
  "install it (Debian/Ubuntu: `sudo apt-get install -y chromium`; Fedora: `sudo dnf install chromium`; macOS: `brew install --cask chromium` or Google Chrome), then run install again";

/** What the command line asks for, checked. */
interface Request {
  clients: ClientId[] | undefined;
  all: boolean;
  force: boolean;
  dryRun: boolean;
  name: string;
}

function readRequest(flags: Flags): Request {
  const targets = flags["--target"];
  const list = Array.isArray(targets) ? targets : typeof targets === "string" ? [targets] : [];
  const name = typeof flags["--server-name"] === "string" ? flags["--server-name"] : "parkour";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new ConfigError(
      `invalid --server-name '${name}'; use letters, digits, '-' and '_' (at most 64)`,
    );
  }
  return {
    clients: list.length ? [...new Set(list as ClientId[])] : undefined,
    all: flags["--all"] === true,
    force: flags["--force"] === true,
    dryRun: flags["--dry-run"] === true,
    name,
  };
}

/** The launch command to install, and the folders it needs created. */
function buildLaunch(
  flags: Flags,
  ctx: PathContext,
): { launch: LaunchCommand; folders: string[] } {
  const options: LaunchOptions = {};
  const folders: string[] = [];
  const config = configDir();
  if (config) options.configDir = config;
  const serverArgs: string[] = [];
  for (const flag of ["--profile", "--default-output"]) {
    const value = flags[flag];
    if (typeof value === "string") serverArgs.push(flag, value);
  }
  if (typeof flags["--tools"] === "string") {
    serverArgs.push("--tools", checkToolSelection(flags["--tools"]));
  }
  if (flags[MUTATING_FLAG] === true) serverArgs.push(MUTATING_FLAG);
  const shelf = flags["--shelf"];
  if (typeof shelf === "string") {
    if (shelf === "memory" || shelf === "kv") serverArgs.push("--shelf", shelf);
    else if (shelf.startsWith("kv:") && shelf.length > 3) {
      const path = absolute(shelf.slice(3), ctx.home);
      options.kvPath = path;
      folders.push(parentDir(path));
      serverArgs.push("--shelf", `kv:${path}`);
    } else {
      throw new ConfigError(
        `invalid --shelf '${shelf}'; valid values: memory, kv, kv:PATH (a Deno KV file)`,
      );
    }
  }
  if (flags["--render"] === true) {
    const chromium = findChromium(ctx.os, ctx.home, ctx.env);
    if (!chromium) {
      throw new InstallFailure(`--render needs Chromium, and none was found; ${CHROMIUM_HELP}`);
    }
    const cache = ctx.env.XDG_CACHE_HOME?.startsWith("/")
      ? ctx.env.XDG_CACHE_HOME
      : `${ctx.home}/.cache`;
    const tmpDir = `${cache.replace(/\/$/, "")}/parkour/render`;
    folders.push(tmpDir);
    // The renderer finds Debian's Chromium by itself; any other browser is named for it.
    const browser = chromium.executables.find((e) => !SYSTEM_CHROMIUM.includes(e));
    options.render = { ...chromium, tmpDir, ...(browser ? { browser } : {}) };
  }
  return { launch: launchCommand(stableInstallation(ctx), options, serverArgs), folders };
}

/**
 * This installation, with Deno named by its PATH entry when that leads to
 * the same executable: `Deno.execPath()` is the resolved file, which for
 * Homebrew, npm or version managers is a versioned path that an upgrade
 * removes, while the PATH entry (a symlink) follows upgrades.
 */
export function stableInstallation(ctx: PathContext): Installation {
  const installation = currentInstallation();
  if (installation.kind !== "script" || installation.npx) return installation;
  const listed = onPath("deno", ctx.env, ctx.os);
  if (!listed || listed === installation.deno) return installation;
  try {
    if (Deno.realPathSync(listed) === Deno.realPathSync(installation.deno)) {
      return { ...installation, deno: listed };
    }
  } catch { /* keep the resolved path */ }
  return installation;
}

/** A failure that stops every target (printed, exit code 1). */
class InstallFailure extends Error {}

/** The folder whose presence suggests a client is installed. */
export function markerDir(client: ClientId, ctx: PathContext): string | undefined {
  if (client === "claude-code") return `${ctx.home}/.claude`;
  if (client === "vscode") return `${appConfigRoot(ctx)}/Code`;
  if (client === "cline") return `${ctx.home}/.cline`;
  const loc = configLocation(client, ctx);
  return "path" in loc ? parentDir(loc.path) : undefined;
}

/**
 * Why `client` looks installed on this machine (its command on PATH, its
 * folder, its configuration file), or undefined when nothing says so.
 */
export function foundBy(client: ClientId, ctx: PathContext): string | undefined {
  const loc = configLocation(client, { ...ctx, exists: ctx.exists ?? exists });
  if ("unavailable" in loc) return undefined;
  if (client === "claude-code") {
    const claude = onPath("claude", ctx.env, ctx.os);
    if (claude) return claude;
  }
  const dir = markerDir(client, ctx);
  if (dir !== undefined && exists(dir)) return dir;
  if (exists(loc.path)) return loc.path;
  return undefined;
}

async function readLine(): Promise<string> {
  const reader = Deno.stdin.readable.getReader();
  const decoder = new TextDecoder();
  let line = "";
  try {
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      line += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return line.split(/\r?\n/)[0];
}

/** Asks on the terminal which clients to configure. */
async function ask(ctx: PathContext): Promise<ClientId[]> {
  // Clients found on this machine first, then the others, then those this OS does not have.
  const rank = (id: ClientId) =>
    "unavailable" in configLocation(id, ctx) ? 2 : foundBy(id, ctx) ? 0 : 1;
  const order = [...CLIENT_IDS].sort((a, b) => rank(a) - rank(b));
  const found = order.filter((id) => rank(id) === 0);
  const lines = [
    "Which MCP clients should start this server? (* = found on this machine)",
  ];
  order.forEach((id, i) => {
    const note = rank(id) === 2 ? ` (not on ${OS_NAMES[ctx.os]})` : rank(id) === 0 ? " *" : "";
    lines.push(`  ${String(i + 1).padStart(2)}. ${CLIENT_LABELS[id]} [${id}]${note}`);
  });
  lines.push(
    `Numbers or names, separated by spaces or commas ('found' for the ${found.length} marked *, or 'all'): `,
  );
  await Deno.stdout.write(new TextEncoder().encode(lines.join("\n")));
  const answer = (await readLine()).trim();
  const words = answer.split(/[\s,]+/).filter(Boolean);
  if (words.length === 0) throw new ConfigError(NO_CLIENT);
  if (words.length === 1 && words[0].toLowerCase() === "all") return [...CLIENT_IDS];
  if (words.length === 1 && words[0].toLowerCase() === "found") {
    if (found.length === 0) {
      throw new ConfigError(`no client was found on this machine; ${NO_CLIENT}`);
    }
    return found;
  }
  const chosen: ClientId[] = [];
  for (const word of words) {
    const n = Number(word);
    const id = /^\d+$/.test(word) && n >= 1 && n <= order.length
      ? order[n - 1]
      : CLIENT_IDS.find((c) => c === word.toLowerCase());
    if (!id) {
      throw new ConfigError(
        `'${word}' is not a number from 1 to ${CLIENT_IDS.length} or a client name (${
          CLIENT_IDS.join(", ")
        })`,
      );
    }
    if (!chosen.includes(id)) chosen.push(id);
  }
  return chosen;
}

function indent(text: string, by = "    "): string[] {
  return text.replace(/\s+$/, "").split("\n").map((l) => by + l);
}

async function readConfig(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** A client's file as text (undefined when it does not exist), or the failure to report. */
async function readOrFail(
  client: ClientId,
  loc: ConfigFile,
): Promise<{ text: string | undefined } | Outcome> {
  try {
    return { text: await readConfig(loc.path) };
  } catch (error) {
    return {
      client,
      status: "failed",
      detail: `cannot read ${loc.path}: ${(error as Error).message}`,
    };
  }
}

async function installFile(
  client: ClientId,
  loc: ConfigFile,
  name: string,
  launch: LaunchCommand,
  dryRun: boolean,
): Promise<Outcome> {
  const read = await readOrFail(client, loc);
  if ("status" in read) return read;
  const text = read.text;
  let edit: EditResult;
  try {
    const entry = clientEntry(client, launch);
    edit = loc.format === "toml"
      ? editToml(text, loc.path, name, entry, launch.env)
      : editJson(text, loc.path, loc.rootKey, name, entry, launch.env);
  } catch (error) {
    if (error instanceof ConfigFileError) {
      return { client, status: "failed", detail: `${error.message} (file left unchanged)` };
    }
    throw error;
  }
  if (!edit.changed) {
    return { client, status: "ok", detail: `${loc.path} already up to date` };
  }
  if (dryRun) {
    return {
      client,
      status: "ok",
      detail: `would ${text === undefined ? "create" : "write"} ${loc.path} with:`,
      more: indent(edit.snippet),
    };
  }
  try {
    const written = await writeAtomic(loc.path, edit.text, text);
    const target = written.path === loc.path ? loc.path : `${loc.path} (-> ${written.path})`;
    return {
      client,
      status: "ok",
      changed: true,
      detail: written.backup
        ? `wrote ${target}; previous version kept in ${written.backup}`
        : `${text === undefined ? "created" : "wrote"} ${target}`,
    };
  } catch (error) {
    return {
      client,
      status: "failed",
      detail: `cannot write ${loc.path}: ${(error as Error).message}`,
    };
  }
}

function quoted(argv: string[]): string {
  return argv.map(shellQuote).join(" ");
}

async function run(argv: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const out = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr).trim() ||
      new TextDecoder().decode(out.stdout).trim();
    return { ok: out.success, output: text };
  } catch (error) {
    return { ok: false, output: (error as Error).message };
  }
}

/** Claude Code through its own command: remove the old entry, then add this one (user scope). */
async function installClaudeCli(
  claude: string,
  name: string,
  launch: LaunchCommand,
  dryRun: boolean,
): Promise<Outcome> {
  const client: ClientId = "claude-code";
  const remove = ["mcp", "remove", "--scope", "user", name];
  // The server name goes before -e: -e takes several values and would swallow it.
  const env = Object.entries(launch.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const add = ["mcp", "add", "--scope", "user", name, ...env, "--", launch.command, ...launch.args];
  const shown = [remove, add].map((argv) => `claude ${quoted(argv)}`);
  if (dryRun) {
    return {
      client,
      status: "ok",
      detail: `would run (${claude}):`,
      more: shown.map((line) => `    ${line}`),
    };
  }
  await run([claude, ...remove]); // absent before the first install: its failure is expected
  const added = await run([claude, ...add]);
  if (!added.ok) {
    return {
      client,
      status: "failed",
      detail: `\`${shown[1]}\` failed: ${
        added.output.split("\n").slice(0, 3).join(" ") || "no message"
      }`,
    };
  }
  return {
    client,
    status: "ok",
    changed: true,
    detail: `ran \`claude mcp add --scope user ${name} ...\``,
  };
}

/** Runs `install`; resolves to the exit code. */
export async function runInstall(flags: Flags): Promise<number> {
  const request = readRequest(flags);
  const env = Deno.env.toObject();
  const os = currentOs();
  const ctx: PathContext = { os, home: homeDir(env), env, exists };
  let clients: ClientId[];
  const notFound: Outcome[] = [];
  if (request.all) {
    clients = [];
    for (const client of CLIENT_IDS) {
      const loc = configLocation(client, ctx);
      if (request.force || "unavailable" in loc || foundBy(client, ctx)) clients.push(client);
      else {
        notFound.push({
          client,
          status: "skipped",
          detail: `not found on this machine (no ${
            tildePath(markerDir(client, ctx) ?? loc.path, ctx.home)
          }); add --force to configure it anyway`,
        });
      }
    }
  } else if (request.clients) clients = request.clients;
  else if (Deno.stdin.isTerminal()) clients = await ask(ctx);
  else throw new ConfigError(NO_CLIENT);

  let launch: LaunchCommand;
  let folders: string[];
  try {
    ({ launch, folders } = buildLaunch(flags, ctx));
  } catch (error) {
    if (error instanceof InstallFailure) {
      console.error(`parkour: ${error.message}`);
      return 1;
    }
    throw error;
  }
  if (!request.dryRun) {
    for (const folder of folders) await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
  }

  const outcomes: Outcome[] = [];
  for (const client of clients) {
    const loc = configLocation(client, ctx);
    if ("unavailable" in loc) {
      outcomes.push({
        client,
        status: request.all ? "skipped" : "failed",
        detail: loc.unavailable,
      });
      continue;
    }
    const claude = client === "claude-code" ? onPath("claude", env, os) : undefined;
    outcomes.push(
      claude
        ? await installClaudeCli(claude, request.name, launch, request.dryRun)
        : await installFile(client, loc, request.name, launch, request.dryRun),
    );
  }

  outcomes.push(...notFound);
  outcomes.sort((a, b) => CLIENT_IDS.indexOf(a.client) - CLIENT_IDS.indexOf(b.client));
  const lines = [request.dryRun ? "Install plan:" : "Installed:"];
  for (const o of outcomes) {
    lines.push(`- ${CLIENT_LABELS[o.client]} (${o.status}): ${o.detail}`, ...(o.more ?? []));
  }
  lines.push(
    "",
    `Server '${request.name}' starts with: ${commandLine(launch)}`,
  );
  if (request.dryRun) lines.push("Dry run: nothing was changed.");
  else if (outcomes.some((o) => o.changed)) {
    lines.push(
      "Restart the clients (or reload their MCP servers) to start it, then ask the agent, for example:",
      '  "Read the outline of https://en.wikipedia.org/wiki/Deno_(software), then its History section."',
    );
  }
  if (request.all && !request.force && !outcomes.some((o) => o.status !== "skipped")) {
    lines.push("No MCP client was found on this machine; name one with --target, or add --force.");
  }
  console.log(lines.join("\n"));
  return outcomes.some((o) => o.status === "failed") ? 1 : 0;
}

/** `path` with the home folder written as `~`. */
function tildePath(path: string, home: string): string {
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Takes the entry out of one client's file, keeping the backup rule of install. */
async function uninstallFile(
  client: ClientId,
  loc: ConfigFile,
  name: string,
  dryRun: boolean,
): Promise<Outcome> {
  const read = await readOrFail(client, loc);
  if ("status" in read) return read;
  const text = read.text;
  if (text === undefined) {
    return { client, status: "skipped", detail: `${loc.path} does not exist: nothing to remove` };
  }
  let removed;
  try {
    removed = loc.format === "toml"
      ? removeToml(text, loc.path, name)
      : removeJson(text, loc.path, loc.rootKey, name);
  } catch (error) {
    if (error instanceof ConfigFileError) {
      return { client, status: "failed", detail: `${error.message} (file left unchanged)` };
    }
    throw error;
  }
  if (!removed.removed) {
    return { client, status: "skipped", detail: `${loc.path} has no entry '${name}'` };
  }
  if (dryRun) {
    return { client, status: "ok", detail: `would remove '${name}' from ${loc.path}` };
  }
  try {
    const written = await writeAtomic(loc.path, removed.text, text);
    return {
      client,
      status: "ok",
      changed: true,
      detail: `removed '${name}' from ${written.path}; previous version kept in ${written.backup}`,
    };
  } catch (error) {
    return {
      client,
      status: "failed",
      detail: `cannot write ${loc.path}: ${(error as Error).message}`,
    };
  }
}

/** Whether a client's file holds the entry `name` (for `uninstall --all`). */
async function hasEntry(loc: ConfigFile, name: string): Promise<boolean> {
  try {
    const text = await readConfig(loc.path);
    if (text === undefined) return false;
    const result = loc.format === "toml"
      ? removeToml(text, loc.path, name)
      : removeJson(text, loc.path, loc.rootKey, name);
    return result.removed;
  } catch {
    // A malformed file is reported by the removal itself.
    return true;
  }
}

/** Runs `uninstall` (alias `remove`); resolves to the exit code. */
export async function runUninstall(flags: Flags): Promise<number> {
  const request = readRequest(flags);
  const env = Deno.env.toObject();
  const os = currentOs();
  const ctx: PathContext = { os, home: homeDir(env), env, exists };
  const outcomes: Outcome[] = [];
  let clients: ClientId[];
  if (request.clients) clients = request.clients;
  else if (request.all) {
    clients = [];
    for (const client of CLIENT_IDS) {
      const loc = configLocation(client, ctx);
      if ("unavailable" in loc) continue;
      const claude = client === "claude-code" ? onPath("claude", env, os) : undefined;
      if (claude || await hasEntry(loc, request.name)) clients.push(client);
    }
  } else {
    throw new ConfigError(
      "no client chosen; try `parkour uninstall --target cursor`, repeat --target for more clients, or use --all (every client whose configuration has the entry)",
    );
  }
  for (const client of clients) {
    const loc = configLocation(client, ctx);
    if ("unavailable" in loc) {
      outcomes.push({ client, status: "failed", detail: loc.unavailable });
      continue;
    }
    const claude = client === "claude-code" ? onPath("claude", env, os) : undefined;
    if (claude) {
      const argv = ["mcp", "remove", "--scope", "user", request.name];
      if (request.dryRun) {
        outcomes.push({
          client,
          status: "ok",
          detail: `would run (${claude}):`,
          more: [`    claude ${quoted(argv)}`],
        });
        continue;
      }
      const ran = await run([claude, ...argv]);
      outcomes.push(
        ran.ok
          ? { client, status: "ok", changed: true, detail: `ran \`claude ${quoted(argv)}\`` }
          : {
            client,
            status: "skipped",
            detail: `\`claude ${quoted(argv)}\` found nothing to remove: ${
              ran.output.split("\n")[0] || "no message"
            }`,
          },
      );
      continue;
    }
    outcomes.push(await uninstallFile(client, loc, request.name, request.dryRun));
  }
  const lines = [request.dryRun ? "Uninstall plan:" : "Uninstalled:"];
  if (outcomes.length === 0) lines.push(`- no client's configuration has '${request.name}'`);
  for (const o of outcomes) {
    lines.push(`- ${CLIENT_LABELS[o.client]} (${o.status}): ${o.detail}`, ...(o.more ?? []));
  }
  if (request.dryRun) lines.push("Dry run: nothing was changed.");
  else if (outcomes.some((o) => o.changed)) {
    lines.push("Restart the clients (or reload their MCP servers) to stop it.");
  }
  console.log(lines.join("\n"));
  return outcomes.some((o) => o.status === "failed") ? 1 : 0;
}
