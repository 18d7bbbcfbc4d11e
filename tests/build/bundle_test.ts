/**
 * The one-file bundle (`deno task bundle`): built once with the task's own
 * command line into a temporary folder, copied alone into an empty folder
 * and run there with an empty Deno cache and the stdio server's permission
 * flags, as a user who downloaded only `parkour.js` would run it.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import meta from "../../deno.json" with { type: "json" };
import { permissions } from "../../lib/install/launch.ts";
import { callTool } from "../support/mcp_client.ts";
import { childEnv, ROOT_DIR, SHIPPED_TOOLS } from "../support/process.ts";
import { makePdf } from "../support/pdf.ts";
import { taskCommand } from "./task.ts";

const built = await Deno.makeTempDir({ prefix: "parkour-bundle-" });
const [command, ...args] = taskCommand("bundle");
const build = await new Deno.Command(command, {
  args: [...args, "--out", built],
  cwd: ROOT_DIR,
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).output();
const buildLog = new TextDecoder().decode(build.stdout) + new TextDecoder().decode(build.stderr);
globalThis.addEventListener("unload", () => Deno.removeSync(built, { recursive: true }));

/** A fresh empty folder holding only a copy of the bundle, and an empty Deno cache. */
async function emptyPlace(): Promise<{ dir: string; denoDir: string; script: string }> {
  const dir = await Deno.makeTempDir({ prefix: "parkour-empty-" });
  const denoDir = await Deno.makeTempDir({ prefix: "parkour-deno-dir-" });
  await Deno.copyFile(`${built}/parkour.js`, `${dir}/parkour.js`);
  return { dir, denoDir, script: `${dir}/parkour.js` };
}

function env(denoDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...childEnv(extra), DENO_DIR: denoDir };
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("bundle: the task writes one file and reports its size and module count", async () => {
  assert.ok(build.success, buildLog);
  assert.deepEqual(await listing(built), ["parkour.js"]);
  const size = (await Deno.stat(`${built}/parkour.js`)).size;
  const m = /parkour\.js: (\d+) bytes, (\d+) modules/.exec(buildLog);
  assert.ok(m, buildLog);
  assert.equal(Number(m[1]), size);
  assert.ok(Number(m[2]) > 100, "main.ts and its packages are in it");
  // Deno copies a module with any other character into a string twice its size at every start.
  const outside = /[\u0080-\uffff]/.exec(await Deno.readTextFile(`${built}/parkour.js`));
  assert.equal(outside, null, "the bundle is ASCII only");
});

Deno.test("bundle: --version from an empty directory with an empty Deno cache", async () => {
  assert.ok(build.success, buildLog);
  const place = await emptyPlace();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions().flags, "parkour.js", "--version"],
    cwd: place.dir,
    env: env(place.denoDir),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), `parkour-mcp ${meta.version}`);
  assert.deepEqual(await listing(place.dir), ["parkour.js"], "nothing is written beside it");
  assert.doesNotMatch(stderr, /Download/, "nothing is downloaded at start-up");
  await Deno.remove(place.dir, { recursive: true });
  await Deno.remove(place.denoDir, { recursive: true });
});

/** The bundle as an MCP server over stdio in `place`, replaying `replay`; `stderr()` is what it wrote. */
function bundleOverStdio(
  place: { dir: string; denoDir: string },
  replay: string,
): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...permissions().flags, `--allow-read=${replay}`, "parkour.js"],
    cwd: place.dir,
    env: env(place.denoDir, { PARKOUR_REPLAY_DIR: replay }),
    stderr: "pipe",
  });
  let text = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => text += new TextDecoder().decode(chunk));
  return { transport, stderr: () => text };
}

Deno.test("bundle over MCP: tools/list, a replayed page and a code outline from the embedded grammar", async () => {
  assert.ok(build.success, buildLog);
  const place = await emptyPlace();
  const replay = `${ROOT_DIR}/fixtures/http`;
  const client = new Client({ name: "bundle-test", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const { transport, stderr } = bundleOverStdio(place, replay);
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.version, meta.version);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), SHIPPED_TOOLS);

    const page = await callTool(client, "web_fetch_incisive", { url: "https://example.org/cafe" });
    assert.equal(page.isError, false, page.text);
    assert.equal(page.fm.source, "https://example.org/cafe");
    assert.ok(page.body.includes("“Quoted” text, 5€."), page.text);

    const code = await callTool(client, "web_fetch_sections", {
      url: "https://github.com/octo-org/widget/blob/main/src/widget.py",
    });
    assert.equal(code.isError, false, code.text);
    assert.equal(code.fm.language, "python", code.text);
    assert.equal(code.fm.definitions, 4, code.text);
    assert.ok(code.body.some((l) => /class Widget \(lines 4-11\)/.test(l)), code.text);
    assert.ok(code.body.some((l) => /def make \(lines 14-16\)/.test(l)), code.text);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr(), /Download/, "no package is fetched for these calls");
  assert.deepEqual(await listing(place.dir), ["parkour.js"]);
  await Deno.remove(place.dir, { recursive: true });
  await Deno.remove(place.denoDir, { recursive: true });
});

Deno.test("bundle over MCP: a PDF read with the embedded pdf.js, its tokens counted by the embedded tokenizer", async () => {
  assert.ok(build.success, buildLog);
  const place = await emptyPlace();
  // A replayed exchange serving a PDF written here (tests/support/pdf.ts).
  const replay = await Deno.makeTempDir({ prefix: "parkour-replay-pdf-" });
  const pages = ["First page about widgets", "Second page about sockets and their kettles"];
  await Deno.writeFile(`${replay}/report.pdf`, makePdf(pages, "Widget report"));
  await Deno.writeTextFile(
    `${replay}/report.json`,
    JSON.stringify({
      request: { method: "GET", url: "https://example.org/report.pdf" },
      response: {
        status: 200,
        headers: { "content-type": "application/pdf" },
        bodyFile: "report.pdf",
      },
      provenance: "written by tests/build/bundle_test.ts with tests/support/pdf.ts",
    }),
  );
  const client = new Client({ name: "bundle-test", version: "1" });
  const { transport, stderr } = bundleOverStdio(place, replay);
  try {
    await client.connect(transport);
    const pdf = await callTool(client, "web_fetch_incisive", {
      url: "https://example.org/report.pdf",
    });
    assert.equal(pdf.isError, false, pdf.text + stderr());
    assert.equal(pdf.fm.content_type, "pdf", pdf.text);
    assert.equal(pdf.fm.pages, 2, pdf.text);
    assert.match(pdf.text, /^┌─ untrusted content \[[0-9a-f]{8}\]\n│\n│ # Widget report$/m);
    assert.ok(pdf.body.some((l) => l.includes(pages[1])), pdf.text);
    // A budget below the page's size: the answer is cut to exact o200k counts.
    const cut = await callTool(client, "web_fetch_incisive", {
      url: "https://example.org/report.pdf",
      query: "sockets",
      max_tokens: 50,
    });
    assert.equal(cut.isError, false, cut.text + stderr());
    const returned = Number(cut.fm.returned_tokens);
    assert.ok(Number.isInteger(returned) && returned > 0 && returned <= 50, cut.text);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr(), /Download/, "pdf.js and the tokenizer come from the bundle");
  assert.deepEqual(await listing(place.dir), ["parkour.js"]);
  await Deno.remove(place.dir, { recursive: true });
  await Deno.remove(place.denoDir, { recursive: true });
  await Deno.remove(replay, { recursive: true });
});

Deno.test("bundle: install run from the bundle writes the bundle's own launch line", async () => {
  assert.ok(build.success, buildLog);
  const place = await emptyPlace();
  const home = await Deno.makeTempDir({ prefix: "parkour-bundle-home-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-env",
        "--allow-read",
        "--allow-write",
        "--allow-run",
        "parkour.js",
        "install",
        "--target",
        "cursor",
      ],
      cwd: place.dir,
      env: env(place.denoDir, { HOME: home }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    const written = JSON.parse(await Deno.readTextFile(`${home}/.cursor/mcp.json`));
    const entry = written.mcpServers.parkour;
    // Deno itself, or `npx -y deno@VERSION` when these tests run on npx's Deno (as CI does).
    assert.equal(entry.args[entry.command === "npx" ? 2 : 0], "run");
    assert.equal(entry.args.at(-2), place.script, "the bundle is the script");
    assert.equal(entry.args.at(-1), "serve");
    for (const flag of permissions().flags) assert.ok(entry.args.includes(flag), flag);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(place.dir, { recursive: true });
    await Deno.remove(place.denoDir, { recursive: true });
  }
});

Deno.test("bundle: serve --http from an empty directory serves the try-it page and its files", async () => {
  assert.ok(build.success, buildLog);
  const place = await emptyPlace();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...permissions({ mode: "http" }).flags,
      "parkour.js",
      "serve",
      "--http",
      "--port",
      "0",
    ],
    cwd: place.dir,
    env: env(place.denoDir),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    let base: string | undefined;
    while (base === undefined) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      base = /serving MCP at (http:\/\/\S+)\/mcp/.exec(text)?.[1];
    }
    assert.ok(base, text);
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/web\/app\.js"/);
    for (
      const [path, type, marker] of [
        ["/web/app.js", /^text\/javascript/, /\/api\/sections/],
        ["/web/render.js", /^text\/javascript/, /DOMPurify\.sanitize/],
        ["/web/vendor/marked.js", /^text\/javascript/, /marked v\d/],
        ["/web/vendor/purify.js", /^text\/javascript/, /DOMPurify/],
        ["/web/style.css", /^text\/css/, /#outline-pane/],
        ["/favicon.svg", /^image\/svg\+xml/, /<svg/],
      ] as const
    ) {
      const file: Response = await fetch(`${base}${path}`);
      assert.equal(file.status, 200, path);
      assert.match(file.headers.get("content-type") ?? "", type);
      assert.match(await file.text(), marker, `${path} is the embedded file`);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel().catch(() => {});
    await Deno.remove(place.dir, { recursive: true });
    await Deno.remove(place.denoDir, { recursive: true });
  }
});
