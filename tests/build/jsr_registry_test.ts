/**
 * The JSR package as a user runs it: `deno publish` uploads this checkout to
 * a registry on 127.0.0.1 (tests/support/jsr_registry.ts), and from an empty
 * folder with an empty Deno cache, `JSR_URL` pointing at that registry:
 *
 * - `deno run -A jsr:@parkour/mcp` (the line a client's config may hold; the
 *   package's `.` is the library, and the program when run as one) is an MCP
 *   server over stdio: `initialize`, `tools/list`, a question on a page large
 *   enough for the conversion workers (which load from the registry), a
 *   PDF (pdf.js and the tokenizer loaded lazily from npm), and a code
 *   outline (the tree-sitter runtime and grammar bytes);
 * - a script importing `fetchPage` from `jsr:@parkour/mcp` reads a page.
 *
 * npm packages still come from the npm registry, as they do for a user.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import meta from "../../deno.json" with { type: "json" };
import { callTool } from "../support/mcp_client.ts";
import { childEnv, openLoopback, ROOT_DIR, SHIPPED_TOOLS } from "../support/process.ts";
import { makePdf } from "../support/pdf.ts";
import {
  type PackageFiles,
  publishTo,
  type Registry,
  startRegistry,
} from "../support/jsr_registry.ts";
import { WORKER_MIN_CHARS } from "../../lib/content/workers/pool.ts";

const PACKAGE = meta.name;

/** One registry and one upload for the whole file. */
let published: Promise<{ registry: Registry; files: PackageFiles; log: string }> | undefined;
function registry(): Promise<{ registry: Registry; files: PackageFiles; log: string }> {
  published ??= (async () => {
    const registry = startRegistry();
    globalThis.addEventListener("unload", () => void registry.close());
    const { files, log } = await publishTo(registry, ROOT_DIR, { DENO_DIR: childEnv().DENO_DIR });
    return { registry, files, log };
  })();
  return published;
}

/** An empty folder to run in and an empty Deno cache. */
async function emptyPlace(): Promise<{ dir: string; denoDir: string; remove(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "parkour-jsr-empty-" });
  const denoDir = await Deno.makeTempDir({ prefix: "parkour-jsr-deno-dir-" });
  return {
    dir,
    denoDir,
    async remove() {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(denoDir, { recursive: true });
    },
  };
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/** A page of `sections` sections, one of which answers the test's question. */
function bigPage(sections: number): string {
  const parts = ["<!doctype html><html><head><title>Big registry page</title></head><body><main>"];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `<h2 id="s${i}">Section ${i} about topic ${i % 97}</h2>`,
      `<p>Paragraph ${i} talks about ordinary things, item ${i}, with more words to read: ${
        "lorem ipsum dolor sit amet ".repeat(10)
      }</p>`,
    );
    if (i === Math.floor(sections / 2)) {
      parts.push(
        `<h2 id="kettle">Descaling the copper kettle</h2>`,
        `<p>To descale the copper kettle, fill it with white vinegar, wait twenty minutes, then rinse it three times.</p>`,
      );
    }
  }
  parts.push("</main></body></html>");
  return parts.join("\n");
}

const PYTHON = [
  "import os",
  "",
  "class Kettle:",
  '    """Boils water."""',
  "",
  "    def boil(self, litres):",
  "        return litres * 2",
  "",
  "def descale(kettle):",
  "    return kettle",
  "",
].join("\n");

// Kotlin's grammar comes from a package of its own, which nothing imports statically.
const KOTLIN = [
  "package kitchen",
  "",
  "class Kettle(val litres: Double) {",
  "    fun boil(): Double = litres * 2",
  "}",
  "",
].join("\n");

/** Pages on 127.0.0.1: a large HTML page, a PDF and a Python file. */
function upstream(): { url: string; hits: Map<string, number>; close(): Promise<void> } {
  const html = new TextEncoder().encode(bigPage(2_400));
  assert.ok(html.length >= WORKER_MIN_CHARS * 1.5, `the page is ${html.length} bytes`);
  const pdf = makePdf(
    ["The registry report, page one: kettles", "Page two: the copper kettle holds 1.7 litres"],
    "Registry report",
  );
  const hits = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/big.html") {
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (path === "/report.pdf") {
      return new Response(pdf, { headers: { "content-type": "application/pdf" } });
    }
    if (path === "/kettle.py") {
      return new Response(PYTHON, { headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    if (path === "/Kettle.kt") {
      return new Response(KOTLIN, { headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    return new Response("not found", { status: 404 });
  });
  const port = (server.addr as Deno.NetAddr).port;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => server.shutdown() };
}

/** How this machine reaches the npm registry (a proxy, its certificates), as a user's shell has it. */
const NETWORK_VARIABLES = [
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "NPM_CONFIG_REGISTRY",
];

/** The environment of a user's process: no checkout, an empty cache, the registry. */
function userEnv(denoDir: string, registryUrl: string, extra: Record<string, string> = {}) {
  const network = Object.fromEntries(
    NETWORK_VARIABLES.map((name) => [name, Deno.env.get(name)]).filter(([, v]) => v),
  );
  return childEnv({
    ...network,
    DENO_DIR: denoDir,
    JSR_URL: registryUrl,
    // The pages are on 127.0.0.1; `-A` leaves the network open, the product's own check is off.
    MCP_ALLOW_PRIVATE_IPS: "1",
    ...extra,
  });
}

Deno.test("jsr: deno publish uploads the package's files, rewritten for a registry", async () => {
  const { files, log } = await registry();
  const paths = [...files.keys()];
  for (const entry of Object.values(meta.exports)) {
    assert.ok(files.has(entry.slice(1)), `${entry} is uploaded (${log})`);
  }
  assert.ok(files.has("/lib/content/workers/convert_worker.ts"), "the worker module is uploaded");
  for (const excluded of meta.publish.exclude) {
    const prefix = `/${excluded}`;
    assert.ok(!paths.some((p) => p.startsWith(prefix)), `nothing under ${excluded} is uploaded`);
  }
  // Import-map names are written as npm: specifiers (a user has no import map).
  const o200k = new TextDecoder().decode(files.get("/lib/content/tokens/o200k.ts"));
  assert.match(o200k, /import\("npm:gpt-tokenizer@[^"]+\/bpeRanks\/o200k_base"\)/);
});

/**
 * Runs `command args` (in `place.dir`, with `env`) as an MCP server over
 * stdio and makes the calls a user would: initialize, tools/list, a question
 * on a large page (converted in a worker loaded from the registry), a PDF
 * (pdf.js and the tokenizer, imported lazily) and code outlines (the
 * tree-sitter runtime and grammars, bytes from npm packages).
 */
async function exercise(
  reg: Registry,
  place: { dir: string },
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<void> {
  const pages = upstream();
  let stderr = "";
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: place.dir,
    env: { ...env, PARKOUR_LOG: "debug" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "jsr-test", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const workerLoads = () =>
    reg.requests.filter((p) => p.endsWith("/lib/content/workers/convert_worker.ts")).length;
  const workerLoadsBefore = workerLoads();
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, "parkour-mcp", stderr);
    assert.equal(client.getServerVersion()?.version, meta.version);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), SHIPPED_TOOLS);

    const answer = await callTool(client, "web_fetch_incisive", {
      url: `${pages.url}/big.html`,
      query: "how do I descale the copper kettle?",
      max_tokens: 400,
    }, { timeout: 120_000 });
    assert.equal(answer.isError, false, answer.text + stderr);
    assert.ok(
      answer.body.some((l) => /white vinegar, wait twenty minutes/.test(l)),
      answer.text,
    );
    assert.doesNotMatch(stderr, /convert on the main thread/, "the page went to a worker");
    assert.match(stderr, /conversion worker started \(http\)/);
    assert.ok(workerLoads() > workerLoadsBefore, "the worker module came from the registry");

    const pdf = await callTool(client, "web_fetch_incisive", {
      url: `${pages.url}/report.pdf`,
      query: "how many litres does the copper kettle hold?",
    }, { timeout: 120_000 });
    assert.equal(pdf.isError, false, pdf.text + stderr);
    assert.equal(pdf.fm.content_type, "pdf", pdf.text);
    assert.ok(pdf.body.some((l) => /1\.7 litres/.test(l)), pdf.text);

    const code = await callTool(client, "web_fetch_sections", { url: `${pages.url}/kettle.py` });
    assert.equal(code.isError, false, code.text + stderr);
    assert.equal(code.fm.language, "python", code.text);
    assert.ok(code.body.some((l) => /class Kettle \(lines 3-7\)/.test(l)), code.text);
    assert.ok(code.body.some((l) => /def descale \(lines 9-10\)/.test(l)), code.text);
    const kotlin = await callTool(client, "web_fetch_sections", { url: `${pages.url}/Kettle.kt` });
    assert.equal(kotlin.isError, false, kotlin.text + stderr);
    assert.equal(kotlin.fm.language, "kotlin", kotlin.text);
    assert.ok(kotlin.body.some((l) => /class Kettle \(lines 3-5\)/.test(l)), kotlin.text);
  } finally {
    await client.close();
    await pages.close();
  }
}

Deno.test({
  name: "jsr: `deno run -A jsr:@parkour/mcp` from an empty folder and cache serves MCP over " +
    "stdio: initialize, tools/list, a question on a large page (in a worker), a PDF, outlines",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { registry: reg } = await registry();
    const place = await emptyPlace();
    try {
      const env = userEnv(place.denoDir, reg.url);
      await exercise(reg, place, Deno.execPath(), ["run", "-A", `jsr:${PACKAGE}`], env);
      assert.deepEqual(await listing(place.dir), [], "nothing is written into the folder");
    } finally {
      await place.remove();
    }
  },
});

Deno.test({
  name: "jsr: the launch line `install` writes from jsr: (least-privilege flags) serves the same",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { registry: reg } = await registry();
    const place = await emptyPlace();
    const home = await Deno.makeTempDir({ prefix: "parkour-jsr-home-" });
    const env = userEnv(place.denoDir, reg.url, { HOME: home });
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `jsr:${PACKAGE}/cli`, "install", "--target", "cursor"],
        cwd: place.dir,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, said);
      const config = JSON.parse(await Deno.readTextFile(`${home}/.cursor/mcp.json`));
      const entry: { command: string; args: string[]; env?: Record<string, string> } =
        config.mcpServers.parkour;
      const cli = new RegExp(`^jsr:${PACKAGE}(@[^/]+)?/cli$`);
      assert.ok(entry.args.some((a) => cli.test(a)), JSON.stringify(entry));
      assert.ok(!entry.args.includes("-A") && !entry.args.includes("--allow-all"));
      // As written, but for the loopback range in --deny-net: the test's pages are on 127.0.0.1.
      await exercise(reg, place, entry.command, openLoopback(entry.args), {
        ...env,
        ...entry.env,
      });
      assert.deepEqual(await listing(place.dir), [], "nothing is written into the folder");
    } finally {
      await Deno.remove(home, { recursive: true });
      await place.remove();
    }
  },
});

Deno.test({
  name: "jsr: a script importing fetchPage from jsr:@parkour/mcp reads a page",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { registry: reg } = await registry();
    const place = await emptyPlace();
    const pages = upstream();
    try {
      const script = [
        `import { fetchPage } from "jsr:${PACKAGE}";`,
        `const page = await fetchPage(${JSON.stringify(`${pages.url}/big.html`)});`,
        `console.log(JSON.stringify({`,
        `  title: page.title,`,
        `  sections: page.sections().length,`,
        `  kettle: page.section("Descaling the copper kettle"),`,
        `  answer: page.answer("how do I descale the copper kettle?", 300).text,`,
        `}));`,
      ].join("\n");
      await Deno.writeTextFile(`${place.dir}/read.ts`, script);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "read.ts"],
        cwd: place.dir,
        env: userEnv(place.denoDir, reg.url),
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      const result = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.equal(result.title, "Big registry page");
      assert.ok(result.sections > 2_000, String(result.sections));
      assert.match(result.kettle, /white vinegar/);
      assert.match(result.answer, /white vinegar/);
      assert.deepEqual(await listing(place.dir), ["read.ts"]);
    } finally {
      await pages.close();
      await place.remove();
    }
  },
});
