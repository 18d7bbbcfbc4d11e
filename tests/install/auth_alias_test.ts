/**
 * `auth` and `setup` are other names of `install`, as in kagi mcp (`kagi mcp
 * install | setup | auth`): the real CLI, run against a temporary HOME in
 * dry-run mode, answers each name exactly as `install` does, and its help
 * names the aliases.
 */
import assert from "node:assert/strict";
import { childEnv, MAIN } from "../support/process.ts";
import meta from "../../deno.json" with { type: "json" };

const words = meta.tasks.install.command.split(/\s+/);
const FLAGS = words.slice(2, words.indexOf("main.ts"));

async function run(home: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, MAIN, ...args],
    env: childEnv({ HOME: home, XDG_CONFIG_HOME: `${home}/.config`, PATH: "/usr/bin:/bin" }),
    clearEnv: true,
    cwd: home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("install aliases: auth and setup plan exactly what install plans", async () => {
  const home = await Deno.makeTempDir({ prefix: "parkour-auth-alias-" });
  try {
    const args = ["--target", "cursor", "--target", "codex", "--dry-run"];
    const install = await run(home, ["install", ...args]);
    assert.equal(install.code, 0, install.stdout + install.stderr);
    assert.match(install.stdout, /^Install plan:$/m);
    for (const alias of ["auth", "setup"]) {
      const other = await run(home, [alias, ...args]);
      assert.equal(other.code, 0, `${alias}: ${other.stdout}${other.stderr}`);
      assert.equal(other.stdout, install.stdout, alias);
    }
    // Nothing was written by any of them.
    assert.deepEqual([...Deno.readDirSync(home)], []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("install aliases: the help names them", async () => {
  const home = await Deno.makeTempDir({ prefix: "parkour-auth-alias-" });
  try {
    const help = await run(home, ["--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /install .*\(aliases: setup, auth\)/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
