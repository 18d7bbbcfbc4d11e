/**
 * A large page converted in a worker gives the same answers as the same
 * page converted on the main thread: the worker sends the Document in parts
 * (the Markdown, the anchors as arrays, the section tree, the token features
 * of each section) that the main thread adopts in pieces, and every view
 * must read the same Document from them.
 *
 * Two servers over stdio (SDK v2 client) with the start task's flags, one
 * converting large pages in workers (lib/content/workers/pool.ts), one with
 * `PARKOUR_CONVERT_WORKERS=0` (pages convert on its main thread), read the
 * same made-up
 * page of nested sections: outline windows, sections, a search, slices and
 * questions must answer alike. The CLI's outline tree (which prints each
 * section's tokens and its subtree's) is compared the same way.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { largeHtml, Upstream } from "../support/clients.ts";
import { childEnv, DEV_CONFIG, launch, MAIN, ROOT_DIR, startFlags } from "../support/process.ts";

const ENV = { MCP_ALLOW_PRIVATE_IPS: "1" };
/** Set in the child `deno test` that runs the in-process tests (see below). */
const CHILD = Deno.env.get("PARKOUR_OFFTHREAD_CHILD") === "1";
/** The environment of a server converting large pages in workers, or on its main thread. */
const envOf = (workers: boolean) =>
  childEnv(workers ? ENV : { ...ENV, PARKOUR_CONVERT_WORKERS: "0" });

interface Called {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

async function connect(workers: boolean): Promise<Client> {
  const { command, args } = launch(MAIN, [], [], startFlags());
  const client = new Client({ name: "offthread-test", version: "1" });
  await client.connect(
    new StdioClientTransport({ command, args, env: envOf(workers), cwd: ROOT_DIR }),
  );
  return client;
}

async function cli(args: string[], workers: boolean): Promise<{ code: number; stdout: string }> {
  const { command, args: argv } = launch(MAIN, args, [], startFlags());
  const out = await new Deno.Command(command, {
    args: argv,
    env: envOf(workers),
    clearEnv: true,
    cwd: ROOT_DIR,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(out.code, 0, decode(out.stderr));
  return { code: out.code, stdout: decode(out.stdout) };
}

/** A page of nested chapters (h1 > h2 > h3, ids on the headings), over 512 KiB. */
function nestedHtml(chapters: number): string {
  const parts = ["<!doctype html><html><head><title>Nested made-up page</title></head><body>"];
  parts.push("<main><p>Preamble: this page is made up for a test, with élan and 日本語.</p>");
  for (let c = 0; c < chapters; c++) {
    parts.push(`<h1 id="c${c}">Chapter ${c}: ${c % 3 === 0 ? "parsing" : "rendering"}</h1>`);
    parts.push(`<p>Chapter ${c} introduces the tokenizer state number ${c}.</p>`);
    for (let s = 0; s < 6; s++) {
      parts.push(`<h2 id="c${c}s${s}">Section ${c}.${s} on the insertion mode</h2>`);
      if (s % 2 === 0) parts.push(`<p>Lead-in of ${c}.${s}, about the stack of open elements.</p>`);
      for (let k = 0; k < 3; k++) {
        parts.push(
          `<h3 id="c${c}s${s}k${k}">Step ${c}.${s}.${k}</h3>`,
          `<p>When the parser sees a start tag ${k}, it inserts an element for the token ` +
            `and pushes it onto the stack; <code>algo_${c}_${s}_${k}</code> handles ` +
            `reconstruction of the active formatting elements. ${"Words to read. ".repeat(8)}</p>`,
          `<ul><li>case ${k}.a: quirks</li><li>case ${k}.b: <em>limited</em> quirks</li></ul>`,
        );
      }
    }
  }
  parts.push("</main></body></html>");
  return parts.join("\n");
}

const html = nestedHtml(80);
assert.ok(
  html.length > 600 * 1024,
  `the page is ${html.length} characters: too small for a worker`,
);
const upstream = new Upstream(html);

const CALLS: [string, Record<string, unknown>][] = [
  ["web_fetch_sections", {}],
  ["web_fetch_sections", { slice: 3 }],
  ["web_fetch_sections", { slice: -1 }],
  ["web_fetch_incisive", { section: "#c7s2" }],
  ["web_fetch_incisive", { section: "Chapter 12: parsing", auto_expand: true }],
  ["web_fetch_incisive", { search: "reconstruction formatting algo_33_4_1" }],
  ["web_fetch_incisive", { slices: [0, 57, 300] }],
  ["web_fetch_incisive", { query: "what happens when the parser sees start tag 2 in 41.3?" }],
  ["web_fetch_incisive", { query: "limited quirks case" }],
];

async function answers(client: Client, url: string): Promise<string[]> {
  const out: string[] = [];
  for (const [name, args] of CALLS) {
    const result = await client.callTool({ name, arguments: { url, ...args } }, {
      timeout: 120_000,
    }) as Called;
    const text = result.content.map((c) => c.text ?? "").join("\n");
    assert.ok(!result.isError, `${name} ${JSON.stringify(args)}: ${text.slice(0, 300)}`);
    // The fence marker is random per answer.
    const fence = /^fence: "?(\w+)"?$/m.exec(text)?.[1];
    out.push(fence ? text.replaceAll(`"${fence}"`, fence).replaceAll(fence, "FENCE") : text);
  }
  return out;
}

Deno.test({
  name: "a page converted in a worker answers every view as one converted in-thread",
  ignore: CHILD,
}, async () => {
  const inWorker = await connect(true);
  const inThread = await connect(false);
  try {
    const url = `${upstream.url}/page?id=views`;
    const a = await answers(inWorker, url);
    const b = await answers(inThread, url);
    for (let i = 0; i < CALLS.length; i++) {
      assert.equal(a[i], b[i], `${CALLS[i][0]} ${JSON.stringify(CALLS[i][1])} differs`);
    }
    // The views read real content: the section and the search found what they asked for.
    assert.match(a[3], /Section 7\.2 on the insertion mode/);
    assert.match(a[5], /algo_33_4_1/);
  } finally {
    await inWorker.close();
    await inThread.close();
  }
});

Deno.test({
  name: "the CLI's outline tree counts the same tokens with and without workers",
  ignore: CHILD,
}, async () => {
  const url = `${upstream.url}/page?id=cli`;
  const args = ["sections", url, "--slice", "1", "--format", "text"];
  const withWorkers = await cli(args, true);
  const without = await cli(args, false);
  // The tree counts a chapter's own tokens and, in parentheses, its subtree's.
  assert.match(without.stdout, /Chapter 4: rendering +#c4 +\d+ +\([\d,]+\)/);
  // The tree (the hint below it names the folder the command ran in).
  const tree = (text: string) => text.split("\n").filter((l) => / #c\d/.test(l));
  assert.equal(tree(without.stdout).length, 100);
  assert.deepEqual(tree(withWorkers.stdout), tree(without.stdout));
});

/** The text of a tool's answer, with its random fence marker made fixed. */
function unfenced(result: Called): string {
  const text = result.content.map((c) => c.text ?? "").join("\n");
  const fence = /^fence: "?(\w+)"?$/m.exec(text)?.[1];
  return fence ? text.replaceAll(`"${fence}"`, fence).replaceAll(fence, "FENCE") : text;
}

const QUESTION = "what happens when the parser sees start tag 2 in 41.3?";
const SEARCH = "reconstruction formatting algo_33_4_1";

/**
 * The tests below read the main thread's index counter, so they run the
 * library's server in the test's own process. `deno test --parallel` runs
 * files in one process, whose environment other files change (they set
 * `PARKOUR_REPLAY_DIR`, which would make this server replay recordings), so
 * these tests run in a child `deno test` of this file with a clean
 * environment, and the suite's process runs only that child.
 */

Deno.test({
  name: "in-process tests (below), in a process of their own with a clean environment",
  ignore: CHILD,
}, async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--config",
      DEV_CONFIG,
      "--no-prompt",
      "--allow-all",
      new URL(import.meta.url).pathname,
    ],
    cwd: ROOT_DIR,
    env: childEnv({ PARKOUR_OFFTHREAD_CHILD: "1" }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  assert.match(text, /ok \| 4 passed \| 0 failed \| 3 ignored/, text);
});

/** The in-process server (the library's `createServer`): its main thread is this one. */
async function inProcess() {
  Deno.env.set("MCP_ALLOW_PRIVATE_IPS", "1");
  const { createServer } = await import("../../server.ts");
  const { indexBuilds } = await import("../../lib/content/document/document.ts");
  const { closeWorkers } = await import("../../lib/content/workers/pool.ts");
  return { server: createServer(), indexBuilds, closeWorkers };
}

Deno.test({
  name:
    "questions on a page still converting wait for the indexes its worker builds: none built here",
  ignore: !CHILD,
}, async () => {
  const { server, indexBuilds, closeWorkers } = await inProcess();
  const reference = await connect(false);
  try {
    const url = `${upstream.url}/page?id=concurrent`;
    const before = { ...indexBuilds };
    const call = (args: Record<string, unknown>, name = "web_fetch_incisive") =>
      server.callTool(name, { url, ...args }) as Promise<Called>;
    // The outline starts the load; the questions and the search join it.
    const [outline, first, second, search] = await Promise.all([
      call({}, "web_fetch_sections"),
      call({ query: QUESTION }),
      call({ query: QUESTION }),
      call({ search: SEARCH }),
    ]);
    for (const r of [outline, first, second, search]) assert.ok(!r.isError, unfenced(r));
    // A question asked right after the outline waits for the same build.
    const later = await call({ query: "limited quirks case" });
    assert.deepEqual(indexBuilds, before, "an index was built on the main thread");
    assert.equal(unfenced(first), unfenced(second));
    // The same answers as a server that converts and indexes on its main thread.
    const ask = async (args: Record<string, unknown>) =>
      unfenced(
        await reference.callTool({ name: "web_fetch_incisive", arguments: { url, ...args } }, {
          timeout: 120_000,
        }) as Called,
      );
    assert.equal(
      unfenced(first).replace(/^cached: .*\n/m, ""),
      (await ask({ query: QUESTION })).replace(/^cached: .*\n/m, ""),
    );
    assert.equal(
      unfenced(search).replace(/^cached: .*\n/m, ""),
      (await ask({ search: SEARCH })).replace(/^cached: .*\n/m, ""),
    );
    assert.equal(unfenced(later), await ask({ query: "limited quirks case" }));
  } finally {
    await reference.close();
    await server.close();
    closeWorkers();
  }
});

Deno.test({
  name: "a question that starts the load waits for its worker's indexes: none built here",
  ignore: !CHILD,
}, async () => {
  const { server, indexBuilds, closeWorkers } = await inProcess();
  const reference = await connect(false);
  try {
    for (
      const [id, args] of [["first-question", { query: QUESTION }], ["first-search", {
        search: SEARCH,
      }]] as const
    ) {
      const url = `${upstream.url}/page?id=${id}`;
      const before = { ...indexBuilds };
      // Nothing else asks for this page: the question's own load converts it in a worker.
      const first = await server.callTool("web_fetch_incisive", { url, ...args }) as Called;
      assert.ok(!first.isError, unfenced(first));
      assert.deepEqual(indexBuilds, before, `${id}: an index was built on the main thread`);
      const expected = await reference.callTool({
        name: "web_fetch_incisive",
        arguments: { url, ...args },
      }, { timeout: 120_000 }) as Called;
      assert.equal(unfenced(first), unfenced(expected));
    }
  } finally {
    await reference.close();
    await server.close();
    closeWorkers();
  }
});

Deno.test(
  { name: "a conversion cancelled in its worker leaves no index behind", ignore: !CHILD },
  async () => {
    const { server, indexBuilds, closeWorkers } = await inProcess();
    const reference = await connect(false);
    const big = new Upstream(largeHtml(12_000));
    try {
      const url = `${big.url}/page?id=cancelled`;
      const abort = new AbortController();
      const cancelled = server.callTool("web_fetch_sections", { url }, { signal: abort.signal });
      cancelled.catch(() => {});
      const until = Date.now() + 60_000;
      while (big.record("cancelled").finishedAt === undefined) {
        assert.ok(Date.now() < until, "the page was never fetched from the local upstream");
        await new Promise((r) => setTimeout(r, 20));
      }
      abort.abort();
      // The call fails (in-process, as an error answer); what matters is what it leaves behind.
      const outcome = await cancelled.then((r) => r as Called, (e) => e as Error);
      assert.ok(outcome instanceof Error || outcome.isError, JSON.stringify(outcome).slice(0, 300));
      const before = { ...indexBuilds };
      const outline = await server.callTool("web_fetch_sections", { url }) as Called;
      assert.ok(!outline.isError, unfenced(outline));
      assert.equal(big.record("cancelled").hits, 2, "the cancelled conversion was kept");
      const question = "what does paragraph 7001 say about item 7001?";
      const answer = await server.callTool("web_fetch_incisive", {
        url,
        query: question,
      }) as Called;
      assert.deepEqual(indexBuilds, before, "an index was built on the main thread");
      const expected = await reference.callTool({
        name: "web_fetch_incisive",
        arguments: { url, query: question },
      }, { timeout: 120_000 }) as Called;
      assert.equal(
        unfenced(answer).replace(/^cached: .*\n/m, ""),
        unfenced(expected).replace(/^cached: .*\n/m, ""),
      );
      assert.match(unfenced(answer), /Paragraph 7001/);
    } finally {
      await reference.close();
      await server.close();
      closeWorkers();
      await big.close();
    }
  },
);

Deno.test({
  name: "offthread: teardown",
  fn: async () => await upstream.close(),
});
