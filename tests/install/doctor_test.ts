/**
 * `doctor`, run as the `doctor` task runs it (the shipped start line) with a
 * clean environment and a temporary home: credentials are reported by
 * source and never by value, a file others can read warns with the chmod
 * fix, a file that cannot be read fails, a KV shelf the line may not write
 * fails naming the flags and works once they are given, the grammars load,
 * and the JSON report says what the text says.
 */
import assert from "node:assert/strict";
import { CODE_LANGUAGES } from "../../lib/content/code/languages.ts";
import { childEnv, MAIN, ROOT_DIR, taskFlags } from "../support/process.ts";

const REAL_HOME = Deno.env.get("HOME") ?? "/tmp";
// A temporary HOME must not move Deno's cache.

const SECRETS = {
  github: "ghp_doctorTestSecret0001",
  kagi: "kagi-doctor-test-secret-0002",
  hf: "hf_doctorTestSecretFromEnv0003",
  redditId: "reddit-id-doctor-0004",
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The start task's flags (exactly as shipped) with `$HOME` meaning `home`. */
function flagsFor(home: string): string[] {
  return taskFlags("start", false).map((f) =>
    f.replaceAll(`${REAL_HOME}/.config/parkour`, `${home}/.config/parkour`)
  );
}

async function doctor(
  home: string,
  args: string[] = [],
  env: Record<string, string> = {},
  extraFlags: string[] = [],
): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...flagsFor(home), ...extraFlags, MAIN, "doctor", ...args],
    cwd: ROOT_DIR,
    clearEnv: true,
    env: childEnv({ HOME: home, ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** The text report's lines as check name → marker and detail. */
function lines(text: string): Map<string, { marker: string; detail: string }> {
  const map = new Map<string, { marker: string; detail: string }>();
  for (const line of text.trimEnd().split("\n")) {
    const m = line.match(/^(ok|warn|--|fail) +([^:]+): (.*)$/);
    assert.ok(m, `unexpected line: ${line}`);
    map.set(m[2], { marker: m[1], detail: m[3] });
  }
  return map;
}

async function tempHome(): Promise<{ home: string; dir: string }> {
  const home = await Deno.makeTempDir({ prefix: "parkour-doctor-" });
  const dir = `${home}/.config/parkour`;
  await Deno.mkdir(dir, { recursive: true });
  return { home, dir };
}

async function writeFile(path: string, text: string, mode: number): Promise<void> {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, mode);
}

Deno.test("doctor: credentials by source, never by value; a shared file warns with the fix", async () => {
  const { home, dir } = await tempHome();
  try {
    await writeFile(`${dir}/github_token`, `${SECRETS.github}\n`, 0o600);
    await writeFile(`${dir}/kagi_api_key`, SECRETS.kagi, 0o644);
    await writeFile(`${dir}/reddit_client_id`, SECRETS.redditId, 0o600);
    await writeFile(`${dir}/s2_accept_tos`, "", 0o644);
    const env = { HF_TOKEN: SECRETS.hf };
    const text = await doctor(home, [], env);
    const json = await doctor(home, ["--format", "json"], env);
    for (const run of [text, json]) {
      assert.equal(run.code, 0, run.stderr);
      for (const secret of Object.values(SECRETS)) {
        assert.ok(!run.stdout.includes(secret), `a secret leaked: ${secret}`);
        assert.ok(!run.stderr.includes(secret), `a secret leaked on stderr: ${secret}`);
      }
    }
    const report = lines(text.stdout);
    assert.deepEqual(report.get("github token"), {
      marker: "ok",
      detail: "~/.config/parkour/github_token (file)",
    });
    assert.deepEqual(report.get("hugging face token"), {
      marker: "ok",
      detail: "HF_TOKEN (environment)",
    });
    const kagi = report.get("kagi key")!;
    assert.equal(kagi.marker, "warn");
    assert.match(kagi.detail, /mode 644/);
    assert.ok(kagi.detail.includes("chmod 600 ~/.config/parkour/kagi_api_key"), kagi.detail);
    assert.equal(report.get("semantic scholar licence")?.marker, "ok");
    assert.match(report.get("semantic scholar licence")!.detail, /s2_accept_tos/);
    assert.deepEqual(report.get("semantic scholar key"), {
      marker: "--",
      detail:
        "not set; optional, unlocks a Semantic Scholar rate limit of your own instead of the shared pool (set S2_API_KEY or ~/.config/parkour/s2_api_key)",
    });
    // The id alone is an installed app's: a userless token of that app, said as such.
    assert.equal(report.get("reddit client id")?.marker, "ok");
    assert.equal(report.get("reddit client secret")?.marker, "--");
    assert.equal(report.get("reddit")?.marker, "warn");
    assert.match(report.get("reddit")!.detail, /userless token of that installed app/);
    assert.equal(report.get("config folder")?.marker, "ok");
    assert.equal(report.get("network")?.marker, "ok");
    assert.equal(report.get("private networks")?.marker, "ok");
    assert.match(report.get("private networks")!.detail, /10\.0\.0\.0\/8/);
    assert.equal(report.get("grammars")?.marker, "ok");
    assert.match(
      report.get("grammars")!.detail,
      new RegExp(`^${CODE_LANGUAGES.length} of ${CODE_LANGUAGES.length} load`),
    );
    assert.ok(!report.has("replay"), "no replay line when it is not set");

    // The JSON report is the text report.
    const checks = JSON.parse(json.stdout) as { check: string; status: string; detail: string }[];
    const marker: Record<string, string> = { ok: "ok", warn: "warn", off: "--", fail: "fail" };
    assert.deepEqual(
      checks.map((c) => `${marker[c.status]} ${c.check}: ${c.detail}`).filter((l) =>
        !l.startsWith("ok grammars:")
      ),
      [...report].map(([check, l]) => `${l.marker} ${check}: ${l.detail}`).filter((l) =>
        !l.startsWith("ok grammars:")
      ),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor: a credential that cannot be read fails", async () => {
  const { home, dir } = await tempHome();
  try {
    await Deno.mkdir(`${dir}/hf_token`);
    const run = await doctor(home, [], { PARKOUR_REPLAY_DIR: `${home}/replay` });
    assert.equal(run.code, 1, run.stdout);
    const report = lines(run.stdout);
    assert.equal(report.get("hugging face token")?.marker, "fail");
    assert.match(report.get("hugging face token")!.detail, /hf_token is not a file/);
    assert.equal(report.get("replay")?.marker, "warn");
    assert.ok(report.get("replay")!.detail.includes(`${home}/replay`));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "doctor: a credential file the OS will not let us read fails",
  // root reads any file whatever its mode.
  ignore: Deno.build.os === "windows" || Deno.uid() === 0,
  async fn() {
    const { home, dir } = await tempHome();
    try {
      await writeFile(`${dir}/kagi_api_key`, SECRETS.kagi, 0o000);
      const run = await doctor(home);
      assert.equal(run.code, 1, run.stdout);
      const kagi = lines(run.stdout).get("kagi key")!;
      assert.equal(kagi.marker, "fail");
      assert.match(kagi.detail, /cannot be read/);
      assert.ok(!run.stdout.includes(SECRETS.kagi));
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("doctor: a KV shelf the line may not write fails with the flags; granted, it works", async () => {
  const { home } = await tempHome();
  const kvDir = `${home}/shelf`;
  await Deno.mkdir(kvDir);
  const path = `${kvDir}/shelf.kv`;
  try {
    const denied = await doctor(home, [], { PARKOUR_SHELF: `kv:${path}` });
    assert.equal(denied.code, 1, denied.stdout);
    const shelf = lines(denied.stdout).get("shelf")!;
    assert.equal(shelf.marker, "fail");
    assert.ok(shelf.detail.includes(`--allow-write=${kvDir}`), shelf.detail);
    assert.ok(shelf.detail.includes(`--allow-read=${kvDir}`), shelf.detail);

    const allowed = await doctor(home, ["--format", "json"], { PARKOUR_SHELF: `kv:${path}` }, [
      `--allow-read=${kvDir}`,
      `--allow-write=${kvDir}`,
    ]);
    assert.equal(allowed.code, 0, allowed.stdout);
    const checks = JSON.parse(allowed.stdout) as {
      check: string;
      status: string;
      detail: string;
    }[];
    const ok = checks.find((c) => c.check === "shelf")!;
    assert.equal(ok.status, "ok");
    assert.match(ok.detail, /probe write and delete succeeded/);
    // The probe leaves no store behind where there was none.
    assert.deepEqual([...Deno.readDirSync(kvDir)], []);

    // An existing store keeps its data and gains no key.
    const kv = await Deno.openKv(path);
    await kv.set(["mine"], 1);
    kv.close();
    const again = await doctor(home, [], { PARKOUR_SHELF: `kv:${path}` }, [
      `--allow-read=${kvDir}`,
      `--allow-write=${kvDir}`,
    ]);
    assert.equal(lines(again.stdout).get("shelf")?.marker, "ok");
    const reopened = await Deno.openKv(path);
    const keys = [];
    for await (const e of reopened.list({ prefix: [] })) keys.push(e.key);
    reopened.close();
    assert.deepEqual(keys, [["mine"]]);

    const bad = await doctor(home, [], { PARKOUR_SHELF: "sqlite:/x" });
    assert.equal(bad.code, 1);
    assert.match(lines(bad.stdout).get("shelf")!.detail, /valid values: memory, kv, kv:PATH/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor: --format with an unknown value is a usage error", async () => {
  const { home } = await tempHome();
  try {
    const run = await doctor(home, ["--format", "yaml"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /text, json|text or json/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
