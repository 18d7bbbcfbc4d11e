/**
 * `deno task compile`: the command lines it would run (every target, the
 * stdio server's least-privilege flags baked in, no script arguments), a
 * cache without runtimes (every target skipped, success), and a cache with
 * one stand-in runtime (that target built with the flags in its metadata,
 * the others skipped). The real runtimes come from dl.deno.land, which
 * these machines cannot reach; a stand-in (any executable of this OS in the
 * zip) lets `deno compile` run to the end.
 */
import assert from "node:assert/strict";
import meta from "../../deno.json" with { type: "json" };
import { DENIED_NETWORKS, permissions } from "../../lib/install/launch.ts";
import { ROOT_DIR } from "../support/process.ts";
import { writeZip } from "../../scripts/zip.ts";
import { taskCommand } from "./task.ts";

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** Runs the compile task with `args` and the environment `env` on top of this one. */
async function compileTask(args: string[], env: Record<string, string> = {}) {
  const [command, ...taskArgs] = taskCommand("compile");
  const out = await new Deno.Command(command, {
    args: [...taskArgs, ...args],
    cwd: ROOT_DIR,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Splits a POSIX shell line as build.ts quotes it (single quotes only). */
function words(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'"'"')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll(`'"'"'`, "'") : m[2]
  );
}

/**
 * A Deno cache with no runtimes that shares this machine's npm packages
 * and esbuild (so the build downloads nothing).
 */
async function isolatedDenoDir(): Promise<string> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const real: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const dir = await Deno.makeTempDir({ prefix: "parkour-deno-dir-" });
  await Deno.mkdir(`${dir}/dl`, { recursive: true });
  await Deno.symlink(`${real}/npm`, `${dir}/npm`).catch(() => {});
  let cached: Deno.DirEntry[] = [];
  try {
    cached = [...Deno.readDirSync(`${real}/dl`)];
  } catch { /* no downloads yet: deno bundle fetches esbuild from npm */ }
  for (const entry of cached.filter((e) => e.name.startsWith("esbuild"))) {
    await Deno.symlink(`${real}/dl/${entry.name}`, `${dir}/dl/${entry.name}`);
  }
  return dir;
}

Deno.test("compile --dry-run: one deno compile line per target, least-privilege flags baked in", async () => {
  const out = await Deno.makeTempDir({ prefix: "parkour-dist-" });
  const { code, stdout, stderr } = await compileTask(["--dry-run", "--out", out]);
  assert.equal(code, 0, stderr);
  const lines = stdout.split("\n").filter((l) => l.startsWith("deno compile "));
  assert.equal(lines.length, TARGETS.length, stdout);
  // The stdio server's flags, then what install/doctor/rendering need (serve drops those).
  const baked = [
    ...permissions({ mode: "stdio" }).flags,
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-sys=homedir",
  ];
  assert.ok(baked.includes(`--deny-net=${DENIED_NETWORKS.join(",")}`));
  for (const [i, target] of TARGETS.entries()) {
    const argv = words(lines[i]);
    const at = (flag: string) => argv[argv.indexOf(flag) + 1];
    assert.equal(at("--target"), target);
    const binary = `${out}/parkour-${target}${target.includes("windows") ? ".exe" : ""}`;
    assert.equal(at("--output"), binary);
    const start = argv.indexOf("--no-prompt");
    assert.deepEqual(argv.slice(start, start + baked.length), baked, lines[i]);
    assert.equal(at("--include"), meta.imports["playwright-core"]);
    assert.equal(argv.at(-1), `${out}/parkour.js`, "the bundle is compiled, with no arguments");
    assert.ok(!argv.some((w) => w.startsWith("--allow-all") || w === "-A"));
  }
  assert.deepEqual([...Deno.readDirSync(out)], [], "a dry run builds nothing");
  await Deno.remove(out);
});

Deno.test("compile: a Deno cache without runtimes skips every target with one line each and succeeds", async () => {
  const denoDir = await isolatedDenoDir();
  const out = await Deno.makeTempDir({ prefix: "parkour-dist-" });
  try {
    const { code, stdout, stderr } = await compileTask(["--out", out], { DENO_DIR: denoDir });
    assert.equal(code, 0, stdout + stderr);
    for (const target of TARGETS) {
      const line = stdout.split("\n").filter((l) => l.startsWith(`compile: ${target}: `));
      assert.equal(line.length, 1, stdout);
      assert.match(line[0], /skipped, its runtime is not in the Deno cache .*--online/);
      assert.ok(
        line[0].includes(`${denoDir}/dl/release/v${Deno.version.deno}/denort-${target}.zip`),
      );
    }
    assert.match(stdout, /nothing built/);
    assert.deepEqual([...Deno.readDirSync(out)], []);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test({
  name: "compile: a target whose runtime is cached is built with the flags in its metadata",
  ignore: Deno.build.os !== "linux" || Deno.build.arch !== "x86_64",
  fn: async () => {
    const denoDir = await isolatedDenoDir();
    const out = await Deno.makeTempDir({ prefix: "parkour-dist-" });
    const target = "x86_64-unknown-linux-gnu";
    try {
      // A stand-in runtime: an executable of this OS, so deno compile can append its payload.
      const release = `${denoDir}/dl/release/v${Deno.version.deno}`;
      await Deno.mkdir(release, { recursive: true });
      await writeZip(`${release}/denort-${target}.zip`, [
        { name: "denort", source: await Deno.readFile("/bin/true"), mode: 0o755 },
      ]);
      const { code, stdout, stderr } = await compileTask(["--out", out], { DENO_DIR: denoDir });
      assert.equal(code, 0, stdout + stderr);
      const binary = `${out}/parkour-${target}`;
      assert.match(stdout, new RegExp(`compile: ${target}: ${binary} \\(\\d+ bytes\\)`));
      for (const other of TARGETS.filter((t) => t !== target)) {
        assert.match(stdout, new RegExp(`compile: ${other}: skipped`));
      }
      const names = [...Deno.readDirSync(out)].map((e) => e.name).sort();
      assert.deepEqual(names, ["parkour-x86_64-unknown-linux-gnu", "parkour.js"]);
      // deno compile writes its options as JSON into the binary.
      const text = new TextDecoder("latin1").decode(await Deno.readFile(binary));
      const denied = /"deny_net":(\[(?:"[^"]*",?)*\])/.exec(text);
      assert.ok(denied, "the binary carries a deny_net list");
      assert.deepEqual(JSON.parse(denied[1]), [...DENIED_NETWORKS]);
      assert.match(text, /"argv":\[\]/, "no script arguments are baked in");
      const features = /"features":(\[(?:"[^"]*",?)*\])/.exec(text);
      assert.ok(features);
      assert.deepEqual(JSON.parse(features[1]).sort(), ["kv", "no-legacy-abort", "raw-imports"]);
      const playwright = meta.imports["playwright-core"].replace(/^npm:/, "").replace("@", "/");
      assert.ok(text.includes(playwright), "Playwright is embedded for renders");
    } finally {
      await Deno.remove(denoDir, { recursive: true });
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("compile: bad options fail with a usage line and exit code 2", async () => {
  const unknown = await compileTask(["--target", "sparc-sun-solaris"]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /unknown target sparc-sun-solaris; targets: x86_64-unknown-linux-gnu/,
  );
  const typo = await compileTask(["--dryrun"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown option --dryrun for compile/);
});
