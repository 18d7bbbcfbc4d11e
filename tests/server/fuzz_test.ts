/**
 * A seeded fuzz of the message rules over stdio and HTTP: thousands of
 * random and malformed JSON-RPC messages (ids of every type, including
 * non-integers and numbers JSON cannot carry exactly, wrong progress tokens,
 * batches, notifications, client error responses with id null, garbage),
 * then a real client session on the same process. Every request gets
 * exactly one well-formed answer carrying its id (or null when the id
 * cannot be echoed), notifications and responses get none, stdout carries
 * protocol lines only, and the process still serves and exits on EOF.
 *
 * The seed is `PARKOUR_FUZZ_SEED` (a number; a fixed default otherwise), so
 * a failing run can be replayed exactly; the failure message names it.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HttpServerProcess, initializeParams, RawServer } from "../support/process.ts";

const SEED = Number(Deno.env.get("PARKOUR_FUZZ_SEED") ?? "18");
const COUNT = 2_000;
const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  /** The line or body sent. */
  text: string;
  /** Whether one answer is due, and the id it must carry. */
  answer: { id: string | number | null } | undefined;
}

const validId = (v: unknown): v is string | number =>
  typeof v === "string" || Number.isSafeInteger(v);

/**
 * What the rules say a parsed message is owed (the spec's rules, written
 * here independently of the server's code): notifications (a method, no
 * id) and responses (a result or error, no method) get nothing; any other
 * message one answer, with its id when the id can be echoed.
 */
function expected(text: string): Case["answer"] {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { id: null };
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return { id: null };
  const m = msg as Record<string, unknown>;
  if ("method" in m && !("id" in m)) return undefined;
  if (!("method" in m) && ("result" in m || "error" in m)) return undefined;
  return { id: validId(m.id) ? m.id : null };
}

/** Random messages; ids that can be echoed are unique across the run. */
function generate(seed: number, count: number, withModern: boolean): Case[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  let serial = 0;
  const goodId = () => (r() < 0.5 ? ++serial : `s-${++serial}`);
  const badIds: unknown[] = [
    1.5,
    1e300,
    123456789012345678901234567890,
    -0.25,
    null,
    true,
    {},
    [1],
    Number.MAX_SAFE_INTEGER + 2,
  ];
  const methods = [
    "ping",
    "tools/list",
    "resources/list",
    "prompts/list",
    "no/such/method",
    "initialize",
    "tools/call",
    "",
  ];
  const paramsFor = (method: string): unknown => {
    if (method === "initialize") {
      return initializeParams(pick(["2025-11-25", "2025-03-26", "1999"]));
    }
    if (method === "tools/call") {
      return pick([{ name: "no_such_tool", arguments: {} }, { name: "web_fetch_sections" }, {}]);
    }
    return pick([undefined, {}, { cursor: "x" }, [1], "str", null, 5]);
  };
  const cases: Case[] = [];
  const add = (value: unknown) => {
    const text = typeof value === "string" && value.startsWith("RAW:")
      ? value.slice(4)
      : JSON.stringify(value);
    cases.push({ text, answer: expected(text) });
  };
  for (let i = 0; i < count; i++) {
    const roll = r();
    const method = pick(methods);
    if (roll < 0.3) {
      // A plausible request with a good id, sometimes in the modern era.
      const params = paramsFor(method) as Record<string, unknown> | undefined;
      const modern = withModern && r() < 0.3 && params && typeof params === "object" &&
        !Array.isArray(params);
      add({
        jsonrpc: "2.0",
        id: goodId(),
        method,
        ...(params !== undefined && { params: modern ? { ...params, _meta: META } : params }),
      });
    } else if (roll < 0.42) {
      add({ jsonrpc: "2.0", id: pick(badIds), method: "ping" });
    } else if (roll < 0.5) {
      // A progress token of the wrong type, on a request or a notification.
      const token = pick([1.5, {}, [], true, null, 1e300]);
      const base = {
        jsonrpc: "2.0",
        method: "tools/list",
        params: { _meta: { progressToken: token } },
      };
      add(r() < 0.7 ? { ...base, id: goodId() } : base);
    } else if (roll < 0.62) {
      // Notifications, well formed or not.
      add(pick([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: goodId() } },
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: 1, progress: 1 },
        },
        { jsonrpc: "1.0", method: "notifications/x" },
        { jsonrpc: "2.0", method: 7 },
        { jsonrpc: "2.0", method: "notifications/x", params: [1] },
      ]));
    } else if (roll < 0.72) {
      // Responses a client sends: results, errors, errors with id null.
      add(pick([
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
        { jsonrpc: "2.0", id: goodId(), result: {} },
        { jsonrpc: "2.0", id: goodId(), error: { code: -32601, message: "no" } },
        { jsonrpc: "2.0", id: 1.5, result: {} },
      ]));
    } else if (roll < 0.8) {
      // Batches.
      add([{ jsonrpc: "2.0", id: goodId(), method: "ping" }, { jsonrpc: "2.0", method: "x" }]);
    } else if (roll < 0.9) {
      // Wrong shapes with a good id.
      add(pick([
        { jsonrpc: "1.0", id: goodId(), method: "ping" },
        { jsonrpc: "2.0", id: goodId(), method: 5 },
        { jsonrpc: "2.0", id: goodId() },
        { jsonrpc: "2.0", id: goodId(), method: "tools/list", params: "x" },
        { id: goodId(), method: "ping" },
      ]));
    } else {
      // Not JSON-RPC at all.
      const junk = Array.from(
        { length: 1 + Math.floor(r() * 40) },
        () => String.fromCharCode(32 + Math.floor(r() * 95)),
      ).join("").replaceAll("\n", " ");
      add(
        pick([`RAW:${junk}`, "RAW:42", 'RAW:"str"', "RAW:null", "RAW:[]", `RAW:{"a":`, "RAW:{}"]),
      );
    }
  }
  return cases;
}

function isAnswer(m: Record<string, unknown>): boolean {
  return m.jsonrpc === "2.0" && "id" in m && !("method" in m) &&
    (("result" in m) !== ("error" in m));
}

/** Checks the answers against the cases: exactly one per request, none otherwise. */
function check(cases: Case[], answers: Record<string, unknown>[], where: string): void {
  const hint = `${where}, seed ${SEED} (replay with PARKOUR_FUZZ_SEED=${SEED})`;
  const want = new Map<string, number>();
  let wantNull = 0;
  for (const c of cases) {
    if (!c.answer) continue;
    if (c.answer.id === null) wantNull++;
    else {
      const key = JSON.stringify(c.answer.id);
      want.set(key, (want.get(key) ?? 0) + 1);
    }
  }
  const got = new Map<string, number>();
  let gotNull = 0;
  for (const a of answers) {
    assert.ok(isAnswer(a), `${hint}: not a well-formed answer: ${JSON.stringify(a)}`);
    if (a.id === null) gotNull++;
    else got.set(JSON.stringify(a.id), (got.get(JSON.stringify(a.id)) ?? 0) + 1);
  }
  for (const [id, n] of want) {
    assert.equal(got.get(id) ?? 0, n, `${hint}: request id ${id} answered ${got.get(id) ?? 0}x`);
  }
  for (const [id] of got) assert.ok(want.has(id), `${hint}: answer to ${id}, which was not due`);
  assert.equal(gotNull, wantNull, `${hint}: answers with id null`);
}

Deno.test(`fuzz: ${COUNT} messages over stdio, each request answered exactly once`, async () => {
  const cases = generate(SEED, COUNT, true);
  const due = cases.filter((c) => c.answer).length;
  const server = new RawServer();
  let closed = false;
  try {
    for (const c of cases) await server.send(c.text);
    const last = await server.request({ id: "fuzz-end", method: "ping" });
    assert.deepEqual(last.result, {});
    // The answers arrive out of order: wait for all of them.
    const deadline = Date.now() + 60_000;
    while (server.lines.length < due + 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    const messages = server.lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stdout carried a line that is not JSON: ${line.slice(0, 200)}`);
      }
    });
    const answers = messages.filter((m) => m.id !== "fuzz-end");
    check(cases, answers, "stdio");
    // Still healthy: a full handshake and a listing.
    const init = await server.request({
      id: "init",
      method: "initialize",
      params: initializeParams("2025-11-25"),
    });
    assert.ok(init.result ?? init.error);
    const list = await server.request({ id: "list", method: "tools/list" });
    assert.ok(Array.isArray((list.result as { tools: unknown[] }).tools));
    const start = Date.now();
    const end = await server.close();
    closed = true;
    assert.equal(end.code, 0);
    assert.ok(Date.now() - start < 10_000, "the process exits promptly when stdin ends");
    console.log(
      `stdio fuzz (seed ${SEED}): ${cases.length} messages, ${due} requests answered, ` +
        `${cases.length - due} notifications/responses unanswered`,
    );
  } finally {
    if (!closed) await server.kill();
  }
});

/** The JSON-RPC messages in an HTTP answer (JSON or SSE). */
async function messagesOf(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  if (!text) return [];
  if (res.headers.get("content-type")?.includes("text/event-stream")) {
    return text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
  }
  const body = JSON.parse(text);
  return Array.isArray(body) ? body : [body];
}

Deno.test(`fuzz: ${COUNT} messages over HTTP, each request answered exactly once`, async () => {
  const cases = generate(SEED + 1, COUNT, true);
  const server = await HttpServerProcess.start();
  try {
    const answers: Record<string, unknown>[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++];
        let headers: Record<string, string> = {};
        try {
          const m = JSON.parse(c.text);
          // A modern message carries the headers of its era (a mismatch is answered too).
          if (m?.params?._meta?.["io.modelcontextprotocol/protocolVersion"]) {
            headers = { "mcp-protocol-version": MODERN, "mcp-method": String(m.method) };
          }
        } catch { /* raw text */ }
        const res = await fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body: c.text,
        });
        const got = await messagesOf(res);
        if (!c.answer) {
          assert.equal(got.length, 0, `seed ${SEED + 1}: ${c.text} was answered`);
          assert.equal(res.status, 202, `seed ${SEED + 1}: ${c.text} got ${res.status}`);
        }
        answers.push(...got.filter((m) => !("method" in m)));
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    check(cases, answers, "http");
    const client = new Client({ name: "after-fuzz", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
    console.log(
      `http fuzz (seed ${SEED + 1}): ${cases.length} messages, ${
        cases.filter((c) => c.answer).length
      } requests answered`,
    );
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
