/**
 * `install --all` on the clients found here (and `--force`), `uninstall`
 * (alias `remove`), and what `doctor` says about the clients' entries: all
 * through the CLI, as the tasks run it, in temporary HOME folders.
 */
import assert from "node:assert/strict";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import meta from "../../deno.json" with { type: "json" };
import { childEnv, MAIN, taskFlags } from "../support/process.ts";

/** `deno run` flags of a task whose line is `deno run FLAGS main.ts <command>`. */
function flagsOf(task: "install" | "uninstall"): string[] {
  const words = meta.tasks[task].command.split(/\s+/);
  const end = words.indexOf("main.ts");
  assert.deepEqual(words.slice(end + 1), [task]);
  return words.slice(2, end);
}

/** PATH without any `claude` command, so Claude Code is configured through its file. */
const PATH = (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":").filter((dir) => {
  try {
    Deno.statSync(`${dir}/claude`);
    return false;
  } catch {
    return true;
  }
}).join(":");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function envFor(home: string): Record<string, string> {
  return childEnv({ HOME: home, XDG_CONFIG_HOME: `${home}/.config`, PATH });
}

async function cli(home: string, flags: string[], args: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, ...args],
    env: envFor(home),
    clearEnv: true,
    cwd: home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const install = (home: string, ...args: string[]) =>
  cli(home, flagsOf("install"), ["install", ...args]);
const uninstall = (home: string, ...args: string[]) =>
  cli(home, flagsOf("uninstall"), ["uninstall", ...args]);
/** doctor under the doctor task's own line, `$HOME` meaning the temporary home. */
const doctor = (home: string) =>
  cli(home, taskFlags("doctor", false, home).slice(1), ["doctor", "--format", "json"]);

async function tempHome(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "parkour-uninstall-" }));
}

async function files(dir: string): Promise<Record<string, string>> {
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

const CURSOR = `{
  // my servers
  "mcpServers": {
    "other": { "command": "other-server" }
  },
  "theme": "dark"
}
`;

const CODEX = `# Codex settings
model = "o3"

[mcp_servers.other]
command = "other-server"

[profiles.fast]
model = "o4-mini"
`;

Deno.test("install --all configures only the clients found here; --force the rest", async () => {
  const empty = await tempHome();
  const home = await tempHome();
  try {
    const none = await install(empty, "--all");
    assert.equal(none.code, 0, none.stdout + none.stderr);
    assert.deepEqual(await files(empty), {}, "nothing written in an empty home");
    assert.match(
      none.stdout,
      /^- Cursor \(skipped\): not found on this machine \(no ~\/\.cursor\); add --force/m,
    );
    assert.match(none.stdout, /No MCP client was found on this machine/);

    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.codex`);
    const found = await install(home, "--all");
    assert.equal(found.code, 0, found.stdout + found.stderr);
    assert.match(found.stdout, /^- Cursor \(ok\): created /m);
    assert.match(found.stdout, /^- Codex CLI \(ok\): created /m);
    assert.match(found.stdout, /^- Windsurf \(skipped\): not found/m);
    assert.deepEqual(Object.keys(await files(home)).sort(), [
      "/.codex/config.toml",
      "/.cursor/mcp.json",
    ]);

    const forced = await install(empty, "--all", "--force");
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    const written = Object.keys(await files(empty));
    assert.ok(written.includes("/.cursor/mcp.json") && written.includes("/.factory/mcp.json"));
    assert.equal(forced.stdout.match(/\(ok\): created /g)?.length, 11, forced.stdout);
  } finally {
    await Deno.remove(empty, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("uninstall takes out exactly our entry, keeps the rest and a backup; remove is its alias", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.codex`);
    await Deno.writeTextFile(`${home}/.cursor/mcp.json`, CURSOR);
    await Deno.writeTextFile(`${home}/.codex/config.toml`, CODEX);
    const added = await install(home, "--target", "cursor", "--target", "codex");
    assert.equal(added.code, 0, added.stdout + added.stderr);
    const installed = await files(home);

    const plan = await uninstall(home, "--target", "cursor", "--dry-run");
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /would remove 'parkour' from .*\.cursor\/mcp\.json/);
    assert.deepEqual(await files(home), installed, "a dry run changes nothing");

    const removed = await uninstall(home, "--target", "cursor");
    assert.equal(removed.code, 0, removed.stdout + removed.stderr);
    assert.match(
      removed.stdout,
      /^- Cursor \(ok\): removed 'parkour' from .*; previous version kept in /m,
    );
    const cursor = await Deno.readTextFile(`${home}/.cursor/mcp.json`);
    assert.ok(cursor.includes("// my servers"), cursor);
    const doc = parseJsonc(cursor);
    assert.deepEqual(doc, { mcpServers: { other: { command: "other-server" } }, theme: "dark" });
    assert.equal(
      await Deno.readTextFile(`${home}/.cursor/mcp.json.bak`),
      installed["/.cursor/mcp.json"],
      "the backup is the file as it was",
    );

    const alias = await cli(home, flagsOf("uninstall"), ["remove", "--target", "codex"]);
    assert.equal(alias.code, 0, alias.stdout + alias.stderr);
    const toml = await Deno.readTextFile(`${home}/.codex/config.toml`);
    assert.doesNotMatch(toml, /parkour/);
    assert.ok(toml.startsWith("# Codex settings\n"));
    assert.deepEqual(parseToml(toml), parseToml(CODEX));

    const again = await uninstall(home, "--target", "cursor");
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^- Cursor \(skipped\): .* has no entry 'parkour'/m);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("uninstall --all touches only the files that have the entry", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.gemini`);
    await Deno.writeTextFile(`${home}/.gemini/settings.json`, `{ "theme": "light" }\n`);
    assert.equal((await install(home, "--target", "cursor")).code, 0);
    const gemini = await Deno.readTextFile(`${home}/.gemini/settings.json`);
    const run = await uninstall(home, "--all");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^- Cursor \(ok\): removed/m);
    assert.doesNotMatch(run.stdout, /Gemini/);
    assert.equal(await Deno.readTextFile(`${home}/.gemini/settings.json`), gemini);
    await assert.rejects(Deno.stat(`${home}/.gemini/settings.json.bak`), Deno.errors.NotFound);
    const none = await uninstall(home);
    assert.equal(none.code, 2, "no target is a usage error");
    assert.match(none.stderr, /no client chosen; try `parkour uninstall --target cursor`/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

interface Check {
  check: string;
  status: string;
  detail: string;
}

Deno.test("doctor: which clients have the entry, whether it is current, what it grants", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.gemini`);
    await Deno.writeTextFile(`${home}/.gemini/settings.json`, `{ "theme": "light" }\n`);
    const before = await doctor(home);
    const none: Check[] = JSON.parse(before.stdout);
    assert.ok(none.some((c) => c.check === "clients without the entry" && /Gemini/.test(c.detail)));
    assert.ok(!none.some((c) => c.check === "client files"), "the doctor task reads the files");

    assert.equal((await install(home, "--target", "cursor", "--shelf", "kv:shelf/x.kv")).code, 0);
    const after: Check[] = JSON.parse((await doctor(home)).stdout);
    const cursor = after.find((c) => c.check === "client cursor");
    assert.ok(cursor, JSON.stringify(after, null, 2));
    assert.equal(cursor.status, "ok", cursor.detail);
    assert.match(
      cursor.detail,
      /launch line current; grants rendering off, shelf kv:\S+shelf\/x\.kv/,
    );

    // An entry written by another checkout (or an older line) is stale.
    const path = `${home}/.cursor/mcp.json`;
    const doc = JSON.parse(await Deno.readTextFile(path));
    const args: string[] = doc.mcpServers.parkour.args;
    doc.mcpServers.parkour.args = args.map((a) => (a === MAIN ? "/old/checkout/main.ts" : a));
    await Deno.writeTextFile(path, JSON.stringify(doc, null, 2));
    const stale = (JSON.parse((await doctor(home)).stdout) as Check[])
      .find((c) => c.check === "client cursor");
    assert.equal(stale?.status, "warn");
    assert.match(
      stale!.detail,
      /not this installation's current launch line \(it runs \/old\/checkout\/main\.ts/,
    );
    assert.match(stale!.detail, /run install --target cursor/);

    doc.mcpServers.parkour.args = args.filter((a) => !a.startsWith("--deny-net"));
    await Deno.writeTextFile(path, JSON.stringify(doc, null, 2));
    const loose = (JSON.parse((await doctor(home)).stdout) as Check[])
      .find((c) => c.check === "client cursor");
    assert.equal(loose?.status, "warn");
    assert.match(loose!.detail, /lacks --deny-net=/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
