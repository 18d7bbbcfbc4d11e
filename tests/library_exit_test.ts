/**
 * A script that uses the library on a large page ends when its work ends.
 * Large pages convert in a worker (lib/content/workers/pool.ts), and a Deno
 * worker keeps its process alive; a server keeps idle workers for half a
 * minute, but a library script must not wait that long to exit.
 *
 * The script runs with read access to the checkout (which lets workers
 * load), reads the outline of a made-up page over 512 KiB from a local
 * upstream with `fetchPage`, prints whether a worker converted it, and
 * returns from its module. The test bounds the wait at 15 s (a server's
 * idle worker lives 30 s). With PARKOUR_CONVERT_WORKERS=0 the same page converts on
 * the main thread.
 */
import assert from "node:assert/strict";
import { largeHtml, Upstream } from "./support/clients.ts";
import { childEnv, ROOT_DIR, runCli } from "./support/process.ts";

async function readLarge(extraEnv: Record<string, string>): Promise<{
  outlineChars: number;
  workers: boolean;
}> {
  const html = largeHtml(6_000);
  assert.ok(html.length > 600 * 1024, `the page is ${html.length} characters: too small`);
  const upstream = new Upstream(html);
  const dir = await Deno.makeTempDir();
  const script = `${dir}/read.ts`;
  await Deno.writeTextFile(
    script,
    [
      `import { fetchPage } from ${JSON.stringify(`${ROOT_DIR}/mod.ts`)};`,
      `import { workersUsable } from ${JSON.stringify(`${ROOT_DIR}/lib/content/workers/pool.ts`)};`,
      `const page = await fetchPage(${JSON.stringify(`${upstream.url}/page?id=exit`)});`,
      `console.log(JSON.stringify({ outlineChars: page.outline().length, workers: workersUsable() }));`,
    ].join("\n"),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--config=${ROOT_DIR}/deno.json`, "-A", script],
    cwd: ROOT_DIR,
    env: childEnv({ MCP_ALLOW_PRIVATE_IPS: "1", ...extraEnv }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const bound = setTimeout(() => child.kill("SIGKILL"), 15_000);
  try {
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.notEqual(out.signal, "SIGKILL", `the script was still running after 15 s\n${stderr}`);
    assert.equal(out.code, 0, stderr);
    return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  } finally {
    clearTimeout(bound);
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("library: a script that read a large page exits when it is done", async () => {
  const result = await readLarge({});
  assert.equal(result.workers, true, "the page must convert in a worker for this test");
  assert.ok(result.outlineChars > 1000, `an outline of ${result.outlineChars} characters`);
});

Deno.test("library: PARKOUR_CONVERT_WORKERS=0 converts large pages on the main thread", async () => {
  const result = await readLarge({ PARKOUR_CONVERT_WORKERS: "0" });
  assert.equal(result.workers, false);
  assert.ok(result.outlineChars > 1000, `an outline of ${result.outlineChars} characters`);
});

Deno.test("library entry run as a program: it is the program (deno run jsr:@parkour/mcp)", async () => {
  const mod = `${ROOT_DIR}/mod.ts`;
  const read = [`--allow-read=${ROOT_DIR}/fixtures`];
  const outline = await runCli(
    ["sections", `${ROOT_DIR}/fixtures/pages/guide.html`],
    {},
    mod,
    read,
  );
  assert.equal(outline.code, 0, outline.stderr);
  assert.match(outline.stdout, /Widget Field Guide/);
  assert.match(outline.stdout, /Choosing a widget/);
  // The CLI's own refusal of a command it does not know, not the library's.
  const unknown = await runCli(["frobnicate"], {}, mod);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /frobnicate/);
});
