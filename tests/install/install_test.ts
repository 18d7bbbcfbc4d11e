/**
 * `parkour install` through the CLI, run as a subprocess with the `install`
 * task's flags against a temporary HOME (never the real one): every
 * client's file, merging into existing configuration with comments and
 * other servers, dry run, backups, re-runs, malformed files, the server
 * options, Claude Code with and without its `claude` command, the prompt on
 * a terminal, and one installed line started as a real MCP server.
 */
import assert from "node:assert/strict";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import meta from "../../deno.json" with { type: "json" };
import { shellQuote } from "../../lib/install/launch.ts";
import { childEnv, MAIN, ROOT_DIR, SHIPPED_TOOLS } from "../support/process.ts";

/** `deno run` flags of the install task. */
function installFlags(): string[] {
  const words = meta.tasks.install.command.split(/\s+/);
  const end = words.indexOf("main.ts");
  assert.equal(words.slice(0, 2).join(" "), "deno run");
  assert.deepEqual(words.slice(end + 1), ["install"]);
  return words.slice(2, end);
}

/** PATH without any `claude` command, so the file fallback is used unless a test adds one. */
const PATH = (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":").filter((dir) => {
  try {
    Deno.statSync(`${dir}/claude`);
    return false;
  } catch {
    return true;
  }
}).join(":");

const chromium = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return childEnv({ HOME: home, XDG_CONFIG_HOME: `${home}/.config`, PATH, ...extra });
}

async function install(
  home: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...installFlags(), MAIN, "install", ...args],
    env: baseEnv(home, env),
    clearEnv: true,
    cwd: home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const homes: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const home of homes) Deno.removeSync(home, { recursive: true });
});

/** A temporary home folder, removed when the tests end. */
async function tempHome(): Promise<string> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "parkour-install-" }));
  homes.push(home);
  return home;
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

function jsonc(text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true });
  assert.deepEqual(errors, [], `not valid JSONC:\n${text}`);
  return value;
}

/** Every file under `dir` with its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(path: string): Promise<void> {
    for await (const entry of Deno.readDir(path)) {
      const full = `${path}/${entry.name}`;
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile) out[full.slice(dir.length)] = await Deno.readTextFile(full);
    }
  }
  await walk(dir);
  return out;
}

/** The JSON-file clients (Linux paths), the key holding servers, and an existing file. */
function existingJson(home: string): { id: string; path: string; root: string; text: string }[] {
  const cfg = `${home}/.config`;
  const mk = (id: string, path: string, root: string) => ({
    id,
    path,
    root,
    text: `{
  // settings of ${id}, kept
  "theme": "dark", /* also kept */
  "${root}": {
    "other": { "command": "other-server", "args": ["--flag"] }, // a server of its own
  },
}
`,
  });
  return [
    mk("claude-code", `${home}/.claude.json`, "mcpServers"),
    mk("cursor", `${home}/.cursor/mcp.json`, "mcpServers"),
    mk("vscode", `${cfg}/Code/User/mcp.json`, "servers"),
    mk("windsurf", `${home}/.codeium/windsurf/mcp_config.json`, "mcpServers"),
    mk("gemini", `${home}/.gemini/settings.json`, "mcpServers"),
    mk("opencode", `${cfg}/opencode/opencode.json`, "mcp"),
    mk("cline", `${home}/.cline/data/settings/cline_mcp_settings.json`, "mcpServers"),
    mk(
      "roo-code",
      `${cfg}/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json`,
      "mcpServers",
    ),
    mk("droid", `${home}/.factory/mcp.json`, "mcpServers"),
    mk("antigravity", `${home}/.gemini/antigravity/mcp_config.json`, "mcpServers"),
  ];
}

const CODEX = `# Codex settings, kept
model = "o3"

[mcp_servers.other]
command = "other-server" # its own comment
args = ["--flag"]

[mcp_servers.parkour]
command = "an-old-line"
args = []
startup_timeout_sec = 40

[mcp_servers.parkour.env]
MY_TOKEN = "kept"
TMPDIR = "/managed/by/install"

# the profiles below, kept
[profiles.fast]
model = "o4-mini"
`;

async function seed(home: string): Promise<void> {
  for (const c of existingJson(home)) await write(c.path, c.text);
  await write(`${home}/.codex/config.toml`, CODEX);
}

/**
 * The args every installed line ends with, and its Deno command: the Deno
 * the install ran under, by an absolute path (npx's cached binary too, as
 * under `.ci/run`), so a client without the shell's PATH can start it.
 */
function assertLaunch(command: string, args: string[], home: string, serverArgs: string[] = []) {
  assert.ok(command.startsWith("/"), `not an absolute path: ${command}`);
  assert.equal(Deno.realPathSync(command), Deno.realPathSync(Deno.execPath()));
  assert.equal(args[0], "run");
  assert.ok(args.includes("--no-prompt"));
  assert.ok(args.some((a) => a.startsWith("--deny-net=") && a.includes("192.168.0.0/16")));
  const read = args.find((a) => a.startsWith("--allow-read="))?.slice(13).split(",");
  assert.ok(read?.includes(`${home}/.config/parkour`), args.join(" "));
  assert.deepEqual(args.slice(args.indexOf(MAIN)), [MAIN, "serve", ...serverArgs]);
}

Deno.test("install --all writes every client's file, keeping other servers, settings and comments", async () => {
  const home = await tempHome();
  await seed(home);
  await Deno.chmod(`${home}/.cursor/mcp.json`, 0o600);
  const run = await install(home, ["--all"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^Installed:$/m);
  if (Deno.build.os === "linux") {
    assert.match(run.stdout, /^- Claude Desktop \(skipped\): .*only on macOS and Windows/m);
  }
  for (const c of existingJson(home)) {
    const text = await Deno.readTextFile(c.path);
    assert.ok(text.includes(`// settings of ${c.id}, kept`), `${c.id}: comment lost\n${text}`);
    assert.ok(text.includes("/* also kept */"), `${c.id}: block comment lost`);
    assert.ok(text.includes("// a server of its own"), `${c.id}: comment lost`);
    const doc = jsonc(text);
    assert.equal(doc.theme, "dark");
    const servers = doc[c.root] as Record<string, Record<string, unknown>>;
    assert.deepEqual(servers.other, { command: "other-server", args: ["--flag"] });
    const entry = servers.parkour;
    assert.ok(entry, `${c.id}: no entry`);
    if (c.id === "opencode") {
      assert.equal(entry.type, "local");
      assert.equal(entry.enabled, true);
      const [command, ...args] = entry.command as string[];
      assertLaunch(command, args, home);
    } else {
      assertLaunch(entry.command as string, entry.args as string[], home);
    }
    assert.equal(entry.env, undefined, `${c.id}: no environment needed without --render`);
    if (["claude-code", "vscode", "droid"].includes(c.id)) assert.equal(entry.type, "stdio");
    if (["cline", "roo-code", "droid"].includes(c.id)) assert.equal(entry.disabled, false);
    assert.match(run.stdout, new RegExp(`previous version kept in ${c.path}\\.bak`));
    assert.equal(await Deno.readTextFile(`${c.path}.bak`), c.text, `${c.id}: backup`);
  }
  assert.equal((await Deno.stat(`${home}/.cursor/mcp.json`)).mode! & 0o777, 0o600);

  const toml = await Deno.readTextFile(`${home}/.codex/config.toml`);
  assert.ok(toml.startsWith("# Codex settings, kept\n"));
  assert.ok(toml.includes('command = "other-server" # its own comment'));
  assert.ok(toml.includes("# the profiles below, kept\n[profiles.fast]"));
  assert.equal(toml.match(/^\[mcp_servers\.parkour\]$/gm)?.length, 1);
  const codex = JSON.parse(JSON.stringify(parseToml(toml))) as {
    model: string;
    profiles: Record<string, unknown>;
    mcp_servers: Record<string, Record<string, unknown>>;
  };
  assert.equal(codex.model, "o3");
  assert.deepEqual(codex.profiles, { fast: { model: "o4-mini" } });
  assert.deepEqual(codex.mcp_servers.other, { command: "other-server", args: ["--flag"] });
  const parkour = codex.mcp_servers.parkour;
  assertLaunch(parkour.command as string, parkour.args as string[], home);
  // A setting the user added stays; of the environment, only the user's own variable.
  assert.equal(parkour.startup_timeout_sec, 40);
  assert.deepEqual(parkour.env, { MY_TOKEN: "kept" });
  assert.equal(await Deno.readTextFile(`${home}/.codex/config.toml.bak`), CODEX);
});

Deno.test("install again changes nothing: every file is already up to date", async () => {
  const home = await tempHome();
  await seed(home);
  const first = await install(home, ["--all"]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const before = await snapshot(home);
  const mtime = (await Deno.stat(`${home}/.codex/config.toml`)).mtime;
  const again = await install(home, ["--all"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.equal(again.stdout.match(/\(ok\): .* already up to date$/gm)?.length, 11, again.stdout);
  assert.doesNotMatch(again.stdout, /Restart the clients/);
  assert.deepEqual(await snapshot(home), before);
  assert.deepEqual((await Deno.stat(`${home}/.codex/config.toml`)).mtime, mtime);
});

Deno.test("install --dry-run writes nothing and prints each file with its new entry", async () => {
  const home = await tempHome();
  await seed(home);
  await Deno.remove(`${home}/.gemini/settings.json`);
  const before = await snapshot(home);
  const run = await install(home, [
    "--all",
    "--dry-run",
    "--server-name",
    "web",
    "--shelf",
    "kv:data/shelf.kv",
    ...(chromium ? ["--render"] : []),
  ]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await snapshot(home), before);
  await assert.rejects(Deno.stat(`${home}/data`), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(`${home}/.cache`), Deno.errors.NotFound);
  assert.match(run.stdout, /^Install plan:$/m);
  assert.match(run.stdout, /^Dry run: nothing was changed\.$/m);
  for (const c of existingJson(home)) {
    const verb = c.id === "gemini" ? "create" : "write";
    assert.ok(run.stdout.includes(`(ok): would ${verb} ${c.path} with:`), `${c.id}\n${run.stdout}`);
  }
  assert.ok(run.stdout.includes(`(ok): would write ${home}/.codex/config.toml with:`));
  assert.match(run.stdout, /^ {4}"servers": \{\n {6}"web": \{\n {8}"type": "stdio",$/m);
  assert.match(run.stdout, /^ {4}\[mcp_servers\.web\]\n {4}command = /m);
  assert.ok(run.stdout.includes(`"${MAIN}",\n`));
});

Deno.test("install: a malformed file fails its client, stays untouched, and the others go on", async () => {
  const home = await tempHome();
  const cursor = `{\n  "mcpServers": {\n    "a": { "command": "x" },,\n  }\n}\n`;
  const codex = `[mcp_servers.other]\ncommand = "x"\nargs = [1,\n`;
  const opencode = `{ "mcp": [] }\n`;
  const inline = `[mcp_servers]\nparkour = { command = "defined-inline" }\n`;
  await write(`${home}/.cursor/mcp.json`, cursor);
  await write(`${home}/.codex/config.toml`, codex);
  await write(`${home}/.config/opencode/opencode.json`, opencode);
  const run = await install(home, [
    "--target",
    "cursor",
    "--target",
    "gemini",
    "--target",
    "codex",
    "--target",
    "opencode",
  ]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(
    run.stdout,
    new RegExp(
      `^- Cursor \\(failed\\): ${home}/\\.cursor/mcp\\.json is not valid JSON: \\w+ at line 3, column \\d+;.*\\(file left unchanged\\)$`,
      "m",
    ),
  );
  assert.match(
    run.stdout,
    new RegExp(
      `^- Codex CLI \\(failed\\): ${home}/\\.codex/config\\.toml is not valid TOML: .* at line \\d+, column \\d+`,
      "m",
    ),
  );
  assert.match(
    run.stdout,
    /^- OpenCode \(failed\): .*"mcp" is an array, not an object of servers/m,
  );
  assert.match(run.stdout, /^- Gemini CLI \(ok\): created /m);
  assert.equal(await Deno.readTextFile(`${home}/.cursor/mcp.json`), cursor);
  assert.equal(await Deno.readTextFile(`${home}/.codex/config.toml`), codex);
  assert.equal(await Deno.readTextFile(`${home}/.config/opencode/opencode.json`), opencode);
  for (const f of [".cursor/mcp.json", ".codex/config.toml"]) {
    await assert.rejects(Deno.stat(`${home}/${f}.bak`), Deno.errors.NotFound);
  }
  assert.ok(jsonc(await Deno.readTextFile(`${home}/.gemini/settings.json`)).mcpServers);

  // A Codex entry written another way (an inline table) is not rewritten behind the user's back.
  await Deno.writeTextFile(`${home}/.codex/config.toml`, inline);
  const again = await install(home, ["--target", "codex"]);
  assert.equal(again.code, 1);
  assert.match(
    again.stdout,
    /Codex CLI \(failed\): .*could not add \[mcp_servers\.parkour\] safely/,
  );
  assert.equal(await Deno.readTextFile(`${home}/.codex/config.toml`), inline);
});

Deno.test("install writes through a symlinked config file and keeps the link", async () => {
  const home = await tempHome();
  const real = `${home}/dotfiles/cursor.json`;
  await write(real, `{ "mcpServers": {} }\n`);
  await Deno.mkdir(`${home}/.cursor`);
  await Deno.symlink(real, `${home}/.cursor/mcp.json`);
  const run = await install(home, ["--target", "cursor"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.ok((await Deno.lstat(`${home}/.cursor/mcp.json`)).isSymlink);
  assert.ok(jsonc(await Deno.readTextFile(real)).mcpServers);
  assert.equal(await Deno.readTextFile(`${real}.bak`), `{ "mcpServers": {} }\n`);
});

Deno.test("install: --server-name, --profile, --default-output, --enable-mutating-tools and --shelf kv:PATH shape the line", async () => {
  const home = await tempHome();
  const run = await install(home, [
    "--target",
    "cursor",
    "--server-name",
    "web",
    "--profile",
    "code",
    "--default-output",
    "json",
    "--enable-mutating-tools",
    "--shelf",
    "kv:data/shelf.kv",
  ]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const doc = jsonc(await Deno.readTextFile(`${home}/.cursor/mcp.json`));
  const entry = (doc.mcpServers as Record<string, { command: string; args: string[] }>).web;
  assert.ok(entry);
  const kv = `${home}/data/shelf.kv`;
  assert.deepEqual(entry.args.slice(entry.args.indexOf(MAIN) + 1), [
    "serve",
    "--profile",
    "code",
    "--default-output",
    "json",
    "--enable-mutating-tools",
    "--shelf",
    `kv:${kv}`,
  ]);
  // The config folder, the checkout (for the conversion workers), the KV folder.
  assert.ok(
    entry.args.includes(`--allow-read=${home}/.config/parkour,${ROOT_DIR},${home}/data`),
    entry.args.join(" "),
  );
  assert.ok(entry.args.includes(`--allow-write=${home}/data`));
  assert.ok((await Deno.stat(`${home}/data`)).isDirectory, "the KV folder is created");

  const bad = await install(home, ["--target", "cursor", "--server-name", "my server"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /parkour: invalid --server-name 'my server'/);
  const badShelf = await install(home, ["--target", "cursor", "--shelf", "disk"]);
  assert.equal(badShelf.code, 2);
  assert.match(badShelf.stderr, /invalid --shelf 'disk'; valid values: memory, kv, kv:PATH/);
});

Deno.test({
  name: "install --render grants Chromium, a private temp folder and the renderer's environment",
  ignore: chromium === undefined,
  fn: async () => {
    const home = await tempHome();
    const run = await install(home, ["--target", "gemini", "--render"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const doc = jsonc(await Deno.readTextFile(`${home}/.gemini/settings.json`));
    const entry = (doc.mcpServers as Record<string, Record<string, unknown>>).parkour;
    const args = entry.args as string[];
    const tmp = `${home}/.cache/parkour/render`;
    assert.deepEqual(entry.env, { __IS_WSL_TEST__: "1", TMPDIR: tmp });
    assert.ok(args.includes("--allow-sys=homedir"));
    const run_ = args.find((a) => a.startsWith("--allow-run="));
    assert.ok(run_?.split("=")[1].split(",").includes(chromium!), args.join(" "));
    assert.ok(args.includes(`--allow-write=${tmp}`));
    assert.ok((await Deno.stat(tmp)).isDirectory);
  },
});
if (chromium === undefined) console.log("install --render test ignored: no Chromium installed");

/** A fake `claude` that records each call's argv (one per line, calls separated by ---). */
async function fakeClaude(home: string, failAdd = false): Promise<{ bin: string; log: string }> {
  const bin = `${home}/bin`;
  const log = `${home}/claude.log`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(
    `${bin}/claude`,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho --- >> '${log}'\n` +
      (failAdd ? `[ "$2" = add ] && { echo "Invalid name" >&2; exit 1; }\n` : "") +
      `exit 0\n`,
  );
  await Deno.chmod(`${bin}/claude`, 0o755);
  return { bin, log };
}

async function calls(log: string): Promise<string[][]> {
  const text = await Deno.readTextFile(log).catch(() => "");
  return text.split("---\n").filter(Boolean).map((c) => c.trimEnd().split("\n"));
}

Deno.test("install --target claude-code runs `claude mcp remove` then `claude mcp add --scope user`", async () => {
  const home = await tempHome();
  const { bin, log } = await fakeClaude(home);
  const env = { PATH: `${bin}:${PATH}` };

  const dry = await install(home, ["--target", "claude-code", "--dry-run"], env);
  assert.equal(dry.code, 0, dry.stdout + dry.stderr);
  assert.deepEqual(await calls(log), []);
  assert.match(dry.stdout, /^ {4}claude mcp remove --scope user parkour$/m);
  assert.match(
    dry.stdout,
    /^ {4}claude mcp add --scope user parkour -- \S+ (?:-y deno@\S+ )?run --no-prompt /m,
  );

  const args = ["--target", "claude-code", ...(chromium ? ["--render"] : [])];
  const run = await install(home, args, env);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^- Claude Code \(ok\): ran `claude mcp add --scope user parkour/m);
  const [remove, add] = await calls(log);
  assert.deepEqual(remove, ["mcp", "remove", "--scope", "user", "parkour"]);
  assert.deepEqual(add.slice(0, 5), ["mcp", "add", "--scope", "user", "parkour"]);
  const dash = add.indexOf("--");
  // Environment options come after the name (-e takes several values and would swallow it).
  const envArgs = add.slice(5, dash);
  if (chromium) {
    assert.deepEqual(envArgs, [
      "-e",
      "__IS_WSL_TEST__=1",
      "-e",
      `TMPDIR=${home}/.cache/parkour/render`,
    ]);
  } else assert.deepEqual(envArgs, []);
  const [command, ...rest] = add.slice(dash + 1);
  assertLaunch(command, rest, home);
  await assert.rejects(Deno.stat(`${home}/.claude.json`), Deno.errors.NotFound);

  const { bin: badBin } = await fakeClaude(`${home}/failing`, true);
  const failed = await install(home, ["--target", "claude-code"], { PATH: `${badBin}:${PATH}` });
  assert.equal(failed.code, 1);
  assert.match(
    failed.stdout,
    /^- Claude Code \(failed\): `claude mcp add .*` failed: Invalid name$/m,
  );
});

Deno.test("install --target claude-code without `claude` on PATH writes ~/.claude.json", async () => {
  const home = await tempHome();
  const run = await install(home, ["--target", "claude-code"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(
    run.stdout,
    new RegExp(`^- Claude Code \\(ok\\): created ${home}/\\.claude\\.json$`, "m"),
  );
  const entry = (jsonc(await Deno.readTextFile(`${home}/.claude.json`)).mcpServers as Record<
    string,
    { type: string; command: string; args: string[] }
  >).parkour;
  assert.equal(entry.type, "stdio");
  assertLaunch(entry.command, entry.args, home);
});

/** npm's cache (where npx keeps the packages it ran), and whether it holds this Deno already. */
function npxDeno(): { npx: string; cache: string } | undefined {
  const npx = PATH.split(":").map((dir) => `${dir}/npx`).find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  const cache = Deno.env.get("npm_config_cache") || `${Deno.env.get("HOME")}/.npm`;
  if (!npx) return undefined;
  try {
    for (const dir of Deno.readDirSync(`${cache}/_npx`)) {
      const pkg = `${cache}/_npx/${dir.name}/node_modules/deno/package.json`;
      try {
        if (JSON.parse(Deno.readTextFileSync(pkg)).version === Deno.version.deno) {
          return { npx, cache };
        }
      } catch { /* another package */ }
    }
  } catch { /* no npx cache */ }
  return undefined;
}

const NPX = npxDeno();

Deno.test({
  name:
    "install through npx (README: npx -y deno@X task install) writes Deno's absolute path, not npx",
  // Only with this Deno in npx's cache already: a test never downloads.
  ignore: NPX === undefined,
  fn: async () => {
    const home = await tempHome();
    const out = await new Deno.Command(NPX!.npx, {
      args: ["-y", `deno@${Deno.version.deno}`, "task", "install", "--target", "claude-code"],
      // HOME is the temporary one; npm's cache and Deno's stay where they are.
      env: baseEnv(home, { npm_config_cache: NPX!.cache, npm_config_update_notifier: "false" }),
      clearEnv: true,
      cwd: ROOT_DIR,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const text = dec.decode(out.stdout) + dec.decode(out.stderr);
    assert.equal(out.code, 0, text);
    const entry = (jsonc(await Deno.readTextFile(`${home}/.claude.json`)).mcpServers as Record<
      string,
      { command: string; args: string[] }
    >).parkour;
    // An absolute path to an executable file that exists: no PATH lookup, no node, no npx.
    assert.match(entry.command, /^\//, entry.command);
    assert.match(entry.command, /[\\/]_npx[\\/].*[\\/]deno$/, entry.command);
    const info = await Deno.stat(entry.command);
    assert.ok(info.isFile && (info.mode! & 0o111) !== 0, `${entry.command} is not executable`);
    assert.equal(entry.args[0], "run");
    assert.ok(entry.args.includes(MAIN), entry.args.join(" "));
    // And what it names runs: the version of the Deno npx resolved.
    const version = await new Deno.Command(entry.command, { args: ["--version"], clearEnv: true })
      .output();
    assert.match(dec.decode(version.stdout), new RegExp(`^deno ${Deno.version.deno} `));
  },
});

Deno.test({
  name: "install --target claude-desktop fails on Linux, naming the macOS and Windows files",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const home = await tempHome();
    const run = await install(home, ["--target", "claude-desktop", "--target", "cursor"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^- Claude Desktop \(failed\): Claude Desktop exists only on macOS and Windows .*Library\/Application Support\/Claude\/claude_desktop_config\.json.*%APPDATA%\\Claude\\claude_desktop_config\.json/m,
    );
    assert.match(run.stdout, /^- Cursor \(ok\): created /m);
  },
});

Deno.test("install without a target and without a terminal says how to choose (exit 2)", async () => {
  const home = await tempHome();
  const run = await install(home, []);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(
    run.stderr,
    /^parkour: no client chosen; try `parkour install --target cursor`, repeat --target for more clients, or use --all$/m,
  );
  assert.deepEqual(await snapshot(home), {});
});

Deno.test({
  name: "the installed line starts a working MCP server (initialize + tools/list)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const home = await tempHome();
    await seed(home);
    const run = await install(home, ["--target", "cursor"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const doc = jsonc(await Deno.readTextFile(`${home}/.cursor/mcp.json`));
    const entry = (doc.mcpServers as Record<
      string,
      { command: string; args: string[]; env?: Record<string, string> }
    >).parkour;
    const client = new Client({ name: "install-test", version: "1" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...baseEnv(home), ...entry.env },
      cwd: home,
      stderr: "pipe",
    });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...SHIPPED_TOOLS].sort());
    } finally {
      await client.close();
    }
  },
});

const script = ["/usr/bin/script", "/bin/script"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name: "install on a terminal without a target asks which clients to configure",
  ignore: script === undefined,
  fn: async () => {
    const home = await tempHome();
    await Deno.mkdir(`${home}/.cursor`);
    const line = [Deno.execPath(), "run", ...installFlags(), MAIN, "install"].map(shellQuote).join(
      " ",
    );
    const child = new Deno.Command(script!, {
      args: ["-qec", line, "/dev/null"],
      env: baseEnv(home),
      clearEnv: true,
      cwd: home,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Answer once the question is on the screen, then read to the end.
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const writer = child.stdin.getWriter();
    let screen = "";
    let answered = false;
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += value;
      if (!answered && screen.includes("or 'all'): ")) {
        answered = true;
        await writer.write(new TextEncoder().encode("1 gemini\n"));
      }
    }
    await writer.close().catch(() => {});
    const status = await child.status;
    await child.stderr.cancel();
    assert.ok(answered, screen);
    const text = screen.replaceAll("\r", "");
    assert.equal(status.code, 0, text);
    assert.match(text, /Which MCP clients should start this server\?/);
    // Found clients first: Cursor (its folder exists) leads the list.
    assert.match(text, /^ +1\. Cursor \[cursor\] \*$/m);
    assert.match(text, /^ +2\. Claude Code \[claude-code\]$/m);
    assert.match(text, /'found' for the 1 marked \*/);
    if (Deno.build.os === "linux") {
      assert.match(text, /^ +12\. Claude Desktop \[claude-desktop\] \(not on Linux\)$/m);
    }
    assert.match(text, /^- Cursor \(ok\): created /m);
    assert.match(text, /^- Gemini CLI \(ok\): created /m);
    assert.ok(jsonc(await Deno.readTextFile(`${home}/.cursor/mcp.json`)).mcpServers);
  },
});
if (script === undefined) console.log("install prompt test ignored: no `script` (util-linux)");
