/**
 * The Claude Desktop extension bundle: the manifest lists the tools the
 * real server lists once every setting is filled in, maps settings only to
 * variables the server reads, carries deno.json's version, and settings
 * left empty reach the server as unset; `scripts/mcpb.ts --check` notices a
 * stale manifest, and `--pack` names missing binaries or writes a bundle
 * whose launcher starts the binary of this machine.
 */
import assert from "node:assert/strict";
import meta from "../../deno.json" with { type: "json" };
import { callTool, startServer } from "../support/mcp_client.ts";
import { ROOT_DIR } from "../support/process.ts";
import { summary } from "../../scripts/mcpb.ts";

const MANIFEST_PATH = `${ROOT_DIR}/mcpb/manifest.json`;
const SCRIPT = `${ROOT_DIR}/scripts/mcpb.ts`;

interface UserConfigOption {
  type: "string" | "number" | "boolean" | "directory" | "file";
  title: string;
  description: string;
  sensitive?: boolean;
  required?: boolean;
  default?: string | number | boolean;
}

interface Manifest {
  manifest_version: string;
  name: string;
  version: string;
  server: {
    type: string;
    entry_point: string;
    mcp_config: {
      command: string;
      args: string[];
      env: Record<string, string>;
      platform_overrides?: Record<string, { command?: string }>;
    };
  };
  tools: { name: string; description: string }[];
  user_config: Record<string, UserConfigOption>;
}

const manifest: Manifest = JSON.parse(Deno.readTextFileSync(MANIFEST_PATH));

/**
 * The environment an MCPB host gives the server: the manifest's defaults,
 * then the user's values, booleans as "true"/"false", substituted into
 * `${user_config.KEY}`; a key with neither a value nor a default stays as
 * the literal placeholder (what the reference implementation does).
 */
function hostEnv(values: Record<string, string | number | boolean>): Record<string, string> {
  const merged: Record<string, string | number | boolean> = {};
  for (const [key, option] of Object.entries(manifest.user_config)) {
    if (option.default !== undefined) merged[key] = option.default;
  }
  Object.assign(merged, values);
  const env: Record<string, string> = {};
  for (const [name, template] of Object.entries(manifest.server.mcp_config.env)) {
    env[name] = template.replace(/\$\{user_config\.([^}]+)\}/g, (whole, key: string) => {
      const value = merged[key];
      if (value === undefined) return whole;
      return typeof value === "boolean" ? (value ? "true" : "false") : String(value);
    });
  }
  return env;
}

/** Every setting filled in, as a user would. */
function filledValues(): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const [key, option] of Object.entries(manifest.user_config)) {
    if (option.type === "boolean") values[key] = true;
    else if (option.type === "number") values[key] = 30;
    else if (key === "profile") values[key] = "desktop";
    else if (key === "playwright_browser") values[key] = "chromium";
    else values[key] = `test-${key}`;
  }
  return values;
}

async function listTools(
  env: Record<string, string>,
): Promise<{ name: string; description?: string }[]> {
  const { client } = await startServer({ env });
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

async function runScript(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", "--allow-read", "--allow-write", "--allow-run", SCRIPT, ...args],
    cwd: ROOT_DIR,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("mcpb: the manifest lists the tools the server lists with every setting filled in", async () => {
  const env = hostEnv(filledValues());
  assert.equal(env.S2_ACCEPT_TOS, "true");
  const tools = await listTools(env);
  assert.deepEqual(
    manifest.tools.map((t) => t.name),
    tools.map((t) => t.name),
  );
  assert.ok(tools.some((t) => t.name === "semantic_scholar"), "the optional tool is listed");
  for (const [i, tool] of tools.entries()) {
    assert.equal(manifest.tools[i].description, summary(tool.description ?? ""), tool.name);
    assert.ok(manifest.tools[i].description.length > 20, tool.name);
  }
});

Deno.test("mcpb: settings left empty reach the server as unset", async () => {
  // Nothing filled in: placeholders stay literal; cleared fields arrive empty.
  for (
    const env of [
      hostEnv({}),
      hostEnv(
        Object.fromEntries(
          Object.keys(manifest.user_config).filter((k) => manifest.user_config[k].type === "string")
            .map((k) => [k, ""]),
        ),
      ),
    ]
  ) {
    assert.ok(Object.values(env).some((v) => v.startsWith("${") || v === ""));
    const { client } = await startServer({ env });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes("semantic_scholar"), "the licence is not accepted");
      assert.ok(names.includes("web_fetch_sections"), "the desktop profile is used");
      const answer = await callTool(client, "kagi_search", { query: "deno" });
      assert.match(answer.text, /no API key configured/);
    } finally {
      await client.close();
    }
  }
});

Deno.test("mcpb: every variable the manifest sets is one the server reads", async () => {
  const read = new Set<string>();
  const files = [`${ROOT_DIR}/main.ts`];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path);
    }
  };
  await walk(`${ROOT_DIR}/lib`);
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/\b(?:env(?:Flag)?|credential)\("([A-Z0-9_]+)"/g)) read.add(m[1]);
  }
  assert.ok(read.has("GITHUB_TOKEN") && read.has("PARKOUR_PROFILE"), "the scan finds reads");
  const env = manifest.server.mcp_config.env;
  for (const name of Object.keys(env)) assert.ok(read.has(name), `the server never reads ${name}`);
  // Each setting feeds exactly one variable, and each variable one setting.
  const used = Object.values(env).map((v) => v.match(/^\$\{user_config\.([^}]+)\}$/)?.[1]);
  assert.deepEqual(used.filter((k) => k === undefined), []);
  assert.deepEqual([...used].sort(), Object.keys(manifest.user_config).sort());
  for (
    const name of ["GITHUB_TOKEN", "HF_TOKEN", "KAGI_API_KEY", "S2_API_KEY", "REDDIT_CLIENT_SECRET"]
  ) {
    const key = env[name].slice("${user_config.".length, -1);
    assert.equal(manifest.user_config[key].sensitive, true, `${name} is sensitive`);
    assert.notEqual(manifest.user_config[key].required, true, `${name} is optional`);
  }
});

Deno.test("mcpb: the manifest carries deno.json's version and starts the binary", () => {
  assert.equal(manifest.version, meta.version);
  assert.equal(manifest.server.type, "binary");
  assert.equal(manifest.server.entry_point, "server/parkour");
  assert.equal(manifest.server.mcp_config.command, "${__dirname}/server/parkour");
  assert.deepEqual(manifest.server.mcp_config.args, ["serve"]);
  assert.equal(
    manifest.server.mcp_config.platform_overrides?.win32?.command,
    "${__dirname}/server/parkour.exe",
  );
});

Deno.test("mcpb: --check passes on the committed manifest and fails on a stale one", async () => {
  const ok = await runScript(["--check"]);
  assert.equal(ok.code, 0, ok.stderr);
  const dir = await Deno.makeTempDir();
  try {
    const stale = JSON.parse(Deno.readTextFileSync(MANIFEST_PATH));
    stale.version = "0.0.1";
    stale.tools = stale.tools.slice(1);
    const path = `${dir}/manifest.json`;
    await Deno.writeTextFile(path, JSON.stringify(stale, null, 2) + "\n");
    const bad = await runScript(["--check", "--manifest", path]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /out of date/);
    assert.match(bad.stderr, /version 0\.0\.1 should be/);
    assert.match(bad.stderr, /tool names/);
    assert.match(bad.stderr, /deno task mcpb/);
    // Without --check the script repairs it.
    const fix = await runScript(["--manifest", path]);
    assert.equal(fix.code, 0, fix.stderr);
    assert.equal(await Deno.readTextFile(path), await Deno.readTextFile(MANIFEST_PATH));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
];

Deno.test("mcpb: --pack names every missing binary", async () => {
  const dist = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dist}/parkour-x86_64-apple-darwin`, "fake");
    const out = await runScript(["--pack", "--dist", dist]);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /missing/);
    for (const t of TARGETS.filter((t) => t !== "x86_64-apple-darwin")) {
      assert.ok(out.stderr.includes(`${dist}/parkour-${t}`), t);
    }
    assert.ok(out.stderr.includes(`${dist}/parkour-x86_64-pc-windows-msvc.exe`));
    assert.ok(!out.stderr.includes(`${dist}/parkour-x86_64-apple-darwin\n`));
    assert.match(out.stderr, /deno task compile/);
    await assert.rejects(() => Deno.stat(`${dist}/parkour.mcpb`));
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});

async function hasUnzip(): Promise<boolean> {
  try {
    return (await new Deno.Command("unzip", { args: ["-v"], stdout: "null", stderr: "null" })
      .output()).success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "mcpb: --pack writes the manifest, the launcher and the binaries, executable",
  ignore: !(await hasUnzip()),
  async fn() {
    const dist = await Deno.makeTempDir();
    try {
      for (const t of TARGETS) {
        await Deno.writeTextFile(`${dist}/parkour-${t}`, `#!/bin/sh\necho "fake ${t} $*"\n`);
      }
      await Deno.writeTextFile(`${dist}/parkour-x86_64-pc-windows-msvc.exe`, "MZ fake");
      const out = await runScript(["--pack", "--dist", dist]);
      assert.equal(out.code, 0, out.stderr);
      const bundle = `${dist}/parkour.mcpb`;
      const test = await new Deno.Command("unzip", { args: ["-t", bundle], stdout: "piped" })
        .output();
      assert.ok(test.success, new TextDecoder().decode(test.stdout));
      const listing = new TextDecoder().decode(
        (await new Deno.Command("unzip", { args: ["-Z", bundle], stdout: "piped" }).output())
          .stdout,
      );
      const entries = new Map(
        [...listing.matchAll(/^([-rwx]{10})\s.*\s(\S+)$/gm)].map((m) => [m[2], m[1]]),
      );
      assert.deepEqual(
        [...entries.keys()].sort(),
        [
          "manifest.json",
          "server/parkour",
          ...TARGETS.map((t) => `server/parkour-${t}`),
          "server/parkour.exe",
        ].sort(),
      );
      assert.equal(entries.get("manifest.json"), "-rw-r--r--");
      for (const [name, mode] of entries) {
        if (name.startsWith("server/")) assert.equal(mode, "-rwxr-xr-x", name);
      }
      const unpacked = `${dist}/unpacked`;
      await Deno.mkdir(unpacked);
      assert.ok(
        (await new Deno.Command("unzip", { args: ["-q", bundle, "-d", unpacked] }).output())
          .success,
      );
      assert.equal(
        await Deno.readTextFile(`${unpacked}/manifest.json`),
        await Deno.readTextFile(MANIFEST_PATH),
      );
      assert.equal(await Deno.readTextFile(`${unpacked}/server/parkour.exe`), "MZ fake");
      // The launcher starts the binary of this machine with the arguments.
      if (Deno.build.os === "linux" || Deno.build.os === "darwin") {
        const os = Deno.build.os === "linux" ? "unknown-linux-gnu" : "apple-darwin";
        const run = await new Deno.Command(`${unpacked}/server/parkour`, {
          args: ["serve", "--x"],
          stdout: "piped",
        }).output();
        assert.equal(
          new TextDecoder().decode(run.stdout).trim(),
          `fake ${Deno.build.arch}-${os} serve --x`,
        );
      }
    } finally {
      await Deno.remove(dist, { recursive: true });
    }
  },
});
