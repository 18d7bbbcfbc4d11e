/**
 * The README's commands work as written on a machine with only Node/npm.
 * Every fenced block whose info string is `sh runnable` is run line by line
 * from the checkout, in a throwaway HOME, without a network (a network
 * namespace with loopback only, where `unshare` can make one), on a
 * pseudo-terminal as a person would type it; a following `text output` block
 * must be what the command printed on stdout. `npx -y deno@VERSION` is
 * answered by this very Deno when VERSION is the one running (under CI, the
 * Deno npx fetched), so nothing is downloaded.
 */
import assert from "node:assert/strict";
import { childEnv, ROOT_DIR } from "./support/process.ts";

const README = await Deno.readTextFile(`${ROOT_DIR}/README.md`);
const CI = await Deno.readTextFile(`${ROOT_DIR}/.ci/run`);
const PINNED = CI.match(/^DENO_VERSION=(\S+)$/m)?.[1];

interface Block {
  info: string;
  body: string;
  line: number;
}

/** Fenced blocks of a Markdown text, with their info strings and first lines. */
function fences(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,})(.*)$/);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(open[1]) && l.trim() === open[1]);
    assert.ok(end > i, `README line ${i + 1}: unclosed fence`);
    blocks.push({ info: open[2].trim(), body: lines.slice(i + 1, end).join("\n"), line: i + 1 });
    i = end;
  }
  return blocks;
}

const BLOCKS = fences(README);

/** Runnable commands, each with the output the README shows after it (if any). */
const RUNNABLE = BLOCKS.flatMap((b, i) => {
  if (b.info !== "sh runnable") return [];
  const commands = b.body.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  const next = BLOCKS[i + 1];
  const output = next?.info === "text output" ? next.body : undefined;
  return commands.map((command, k) => ({
    command,
    line: b.line,
    output: k === commands.length - 1 ? output : undefined,
  }));
});

Deno.test("readme: commands name Deno the npx way, at the version CI installs", () => {
  assert.ok(PINNED, ".ci/run names DENO_VERSION");
  assert.ok(RUNNABLE.length >= 4, `runnable commands: ${RUNNABLE.length}`);
  for (const b of BLOCKS.filter((b) => b.info.startsWith("sh"))) {
    for (const line of b.body.split("\n")) {
      assert.doesNotMatch(line, /^deno /, `README line ${b.line}: '${line}' needs deno on PATH`);
      for (const m of line.matchAll(/npx -y deno@(\S+)/g)) {
        assert.equal(m[1], PINNED, `README line ${b.line}: deno@${m[1]}`);
      }
    }
  }
  for (const m of README.matchAll(/npx -y deno@([\d.]+)/g)) assert.equal(m[1], PINNED);
  // The first runnable output comes on the first screen.
  const first = BLOCKS.find((b) => b.info === "text output");
  assert.ok(first && first.line < 60, `first output at README line ${first?.line}`);
});

const SCRIPT = ["/usr/bin/script", "/bin/script"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

/** Whether this machine can run a command in a network namespace of its own. */
async function canUnshare(): Promise<boolean> {
  try {
    const out = await new Deno.Command("unshare", {
      args: ["-rn", "true"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

const UNSHARE = await canUnshare();
if (!SCRIPT) console.log("readme_test: no `script` (util-linux): the README commands are ignored");
if (SCRIPT && !UNSHARE) {
  console.log("readme_test: no network namespace here (unshare -rn); commands run on this network");
}

/** Output as the README shows it: no terminal line ends, this checkout's path and Deno generic. */
function normalise(text: string): string {
  return text.replaceAll("\r\n", "\n").replaceAll(ROOT_DIR, "/path/to/parkour")
    .replace(/(?:npx -y deno@[\d.]+|deno) task/g, "deno task")
    .replace(/\b(fence: |untrusted content(?:: [^[\n]*)? \[)"?[0-9a-f]{8}"?/g, "$1<id>")
    .replace(/\s+$/, "");
}

Deno.test({
  name: "readme: every runnable command works as written, offline, and prints what is shown",
  ignore: !SCRIPT || Deno.build.os === "windows",
  fn: async () => {
    const home = await Deno.makeTempDir({ prefix: "parkour-readme-" });
    try {
      // `npx -y deno@PINNED ...` is this Deno; any other npx call fails loudly.
      const bin = `${home}/.test-bin`;
      await Deno.mkdir(bin);
      const npx = `${bin}/npx`;
      await Deno.writeTextFile(
        npx,
        `#!/bin/sh
if [ "$1" = -y ] && [ "$2" = "deno@${Deno.version.deno}" ]; then shift 2; exec "${Deno.execPath()}" "$@"; fi
echo "readme_test: npx $* is not available offline" >&2; exit 127
`,
      );
      await Deno.chmod(npx, 0o755);
      assert.equal(PINNED, Deno.version.deno, "the tests run under the Deno the README names");
      const path = [bin, `${home}/.local/bin`, ...(Deno.env.get("PATH") ?? "").split(":")]
        .filter((dir) => {
          try {
            Deno.statSync(`${dir}/claude`);
            return false;
          } catch {
            return true;
          }
        }).join(":");
      const env = childEnv({ HOME: home, PATH: path, XDG_CONFIG_HOME: `${home}/.config` });
      for (const { command, line, output } of RUNNABLE) {
        const errFile = `${home}/.stderr`;
        const inner = `${command} 2>${errFile}`;
        const argv = [
          ...(UNSHARE ? ["unshare", "-rn"] : []),
          SCRIPT!,
          "-qec",
          inner,
          "/dev/null",
        ];
        const out = await new Deno.Command(argv[0], {
          args: argv.slice(1),
          cwd: ROOT_DIR,
          env,
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stdout = new TextDecoder().decode(out.stdout);
        const stderr = await Deno.readTextFile(errFile).catch(() => "");
        assert.equal(
          out.code,
          0,
          `README line ${line}: '${command}' exited ${out.code}\n${stdout}\n${stderr}`,
        );
        if (output !== undefined) {
          assert.equal(
            normalise(stdout),
            normalise(output),
            `README line ${line}: '${command}' printed something else`,
          );
        }
      }
      // The install line wrote the client's file in the throwaway HOME, and the shim answers.
      const claude = JSON.parse(await Deno.readTextFile(`${home}/.claude.json`));
      assert.ok(claude.mcpServers?.parkour?.args?.includes(`${ROOT_DIR}/main.ts`));
      const shim = await new Deno.Command(`${home}/.local/bin/parkour`, {
        args: ["sections", "fixtures/pages/guide.html", "--format", "json"],
        cwd: ROOT_DIR,
        env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(shim.code, 0, new TextDecoder().decode(shim.stderr));
      const sections = JSON.parse(new TextDecoder().decode(shim.stdout)).sections;
      assert.deepEqual(
        sections.map((s: { address: string }) => s.address),
        ["#top", "#choosing", "#sizes", "#fitting", "#care", "#faq"],
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("readme: docs/tools.md is what the tools say today (scripts/tool_docs.ts --check)", async () => {
  const words = (await import("../deno.json", { with: { type: "json" } })).default
    .tasks["docs:tools"].command.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...words.slice(1), "--check"],
    cwd: ROOT_DIR,
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stdout) + dec.decode(out.stderr));
  assert.match(dec.decode(out.stdout), /docs\/tools\.md is up to date/);
});
