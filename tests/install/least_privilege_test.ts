/**
 * The shipped launch lines, run exactly as deno.json writes them: the
 * socket-level deny of private networks holds even when the network layer's
 * own check is switched off, the HTTP line can bind loopback, credential
 * files are readable under the stdio line and refused when others can read
 * them, and every task line is what lib/install/launch.ts computes.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import meta from "../../deno.json" with { type: "json" };
import { CLIENT_IDS } from "../../lib/install/clients.ts";
import { configCandidates } from "../../lib/install/targets.ts";
import { permissions, renderEnv } from "../../lib/install/launch.ts";
import { callTool, startServer, stderrSettled } from "../support/mcp_client.ts";
import { childEnv, MAIN, replaySetup, ROOT_DIR, taskFlags } from "../support/process.ts";

interface Spawned {
  client: Client;
  stderr: () => string;
}

/** The server under a task's exact line (`runFlags`, `run` first), its stderr collected. */
async function spawn(runFlags: string[], env: Record<string, string>): Promise<Spawned> {
  let err = "";
  const onStderr = (text: string) => err += text;
  const { client } = await startServer({ runFlags, env, replay: false, onStderr });
  return { client, stderr: () => err };
}

/** Words of a task between `deno run` and `main.ts`, and its leading VAR=value words. */
function taskLine(name: keyof typeof meta.tasks): { env: Record<string, string>; flags: string[] } {
  const line = meta.tasks[name].command;
  const words = line.slice(line.indexOf("deno run")).split(/\s+/);
  const env = Object.fromEntries(
    [...line.slice(0, line.indexOf("deno run")).matchAll(/(?:^|\s)([A-Z_]+)=(\S+)/g)].map((m) => [
      m[1],
      m[2],
    ]),
  );
  return { env, flags: words.slice(2, words.indexOf("main.ts")) };
}

Deno.test("launch lines: every task line is the one lib/install/launch.ts computes", () => {
  const configDir = "$HOME/.config/parkour";
  // The server lines read the checkout too ("."), so the conversion workers can load; a task
  // line is quiet (no npm download lines or progress bar before the answer).
  const programDir = ".";
  const quiet = true;
  assert.deepEqual(taskLine("start").flags, permissions({ configDir, programDir, quiet }).flags);
  // doctor also reads the MCP clients' files (Linux paths), to report their entries, and the
  // checkout: its modules load when they run (deno.json's lazy-dynamic-imports).
  const clientFiles = CLIENT_IDS.flatMap((c) =>
    configCandidates(c, { os: "linux", home: "$HOME", env: {} })
  );
  assert.deepEqual(
    taskLine("doctor").flags,
    permissions({ configDir, programDir, readFiles: clientFiles, quiet }).flags,
  );
  assert.deepEqual(
    taskLine("serve:http").flags,
    permissions({ configDir, programDir, mode: "http", quiet }).flags,
  );
  const render = permissions({
    configDir,
    programDir,
    quiet,
    render: {
      executables: ["/usr/bin/chromium", "/usr/lib/chromium/chromium"],
      readPaths: ["/usr/bin/chromium", "/usr/lib/chromium"],
      tmpDir: "/tmp/parkour-render",
    },
  });
  assert.deepEqual(taskLine("start:render").flags, render.flags);
  assert.deepEqual(taskLine("start:render").env, renderEnv("/tmp/parkour-render"));
  assert.deepEqual(render.env, renderEnv("/tmp/parkour-render"));
  // The stdio line denies loopback; the HTTP line must not, or it could not bind.
  assert.match(meta.tasks.start.command, /--deny-net=[^ ]*127\.0\.0\.0\/8/);
  assert.doesNotMatch(meta.tasks["serve:http"].command, /[=,](127\.0\.0\.0|0\.0\.0\.0)\/8/);
  assert.match(meta.tasks["serve:http"].command, /--deny-net=[^ ]*192\.168\.0\.0\/16/);
  // The render line leaves only 127.0.0.0/8 to the renderer's proxy; [::1] stays denied.
  assert.doesNotMatch(meta.tasks["start:render"].command, /127\.0\.0\.0\/8/);
  assert.match(
    meta.tasks["start:render"].command,
    /--deny-net=0\.0\.0\.0\/8,[^ ]*192\.168\.0\.0\/16,\[::1\] /,
  );
});

Deno.test("launch lines: the stdio line refuses loopback at the socket even with the address check off", async () => {
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<html><head><title>Local</title></head><body><h1>Local</h1><p>secret</p>", {
        headers: { "content-type": "text/html" },
      }),
  );
  const url = `http://127.0.0.1:${upstream.addr.port}/`;
  try {
    const shipped = await spawn(taskFlags("start", false), { MCP_ALLOW_PRIVATE_IPS: "1" });
    const refused = await callTool(shipped.client, "web_fetch_incisive", { url }, {
      emptyFmOnError: true,
    });
    await shipped.client.close();
    assert.equal(refused.isError, true, refused.text);
    assert.match(refused.text, /refused by this server's launch line/);
    assert.match(refused.text, /--deny-net/);
    assert.doesNotMatch(refused.text, /secret/);

    // Control: the same call with loopback left out of --deny-net reaches the page,
    // so the refusal above came from the flag.
    const open = await spawn(taskFlags("start", true), { MCP_ALLOW_PRIVATE_IPS: "1" });
    const read = await callTool(open.client, "web_fetch_incisive", { url });
    await open.client.close();
    assert.equal(read.isError, false, read.text);
    assert.match(read.body.join("\n"), /secret/);
  } finally {
    await upstream.shutdown();
  }
});

async function run(flags: string[], args: string[], timeoutMs = 20_000) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...flags, MAIN, ...args],
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: ROOT_DIR,
  }).spawn();
  const timer = setTimeout(() => child.kill(), timeoutMs);
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let err = "";
  // Read until the server says where it listens, or the process ends.
  while (!/serving MCP at/.test(err)) {
    const { value, done } = await reader.read();
    if (done) break;
    err += value;
  }
  const listening = /serving MCP at (\S+)/.exec(err)?.[1];
  if (listening) child.kill("SIGTERM");
  reader.releaseLock();
  await child.stdout.cancel();
  const status = await child.status;
  clearTimeout(timer);
  return { code: status.code, stderr: err, listening };
}

Deno.test("launch lines: serve:http binds loopback; the stdio line names the task to use instead", async () => {
  const http = await run(taskFlags("serve:http", false), ["serve", "--http", "--port", "0"]);
  assert.match(http.listening ?? "", /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, http.stderr);

  const stdioLine = await run(taskFlags("start", false), ["serve", "--http", "--port", "0"]);
  assert.equal(stdioLine.code, 2, stdioLine.stderr);
  assert.equal(stdioLine.listening, undefined);
  assert.match(stdioLine.stderr, /may not bind 127\.0\.0\.1:0/);
  assert.match(stdioLine.stderr, /deno task serve:http/);
});

Deno.test("launch lines: credential files are read under the stdio line, and refused when others can read them", async () => {
  const home = await Deno.makeTempDir({ prefix: "parkour-home-" });
  try {
    await Deno.mkdir(`${home}/.config/parkour`, { recursive: true });
    const keyFile = `${home}/.config/parkour/kagi_api_key`;
    await Deno.writeTextFile(keyFile, "kagi-file-key-5d1e\n", { mode: 0o600 });
    await Deno.chmod(keyFile, 0o600);
    const replay = replaySetup();
    const flags = [...taskFlags("start", true, home), ...replay.flags];
    const query = { query: 'deno "test runner" site:docs.deno.com' };

    const good = await spawn(flags, { ...replay.env, HOME: home });
    const withKey = await callTool(good.client, "kagi_search", query, { emptyFmOnError: true });
    await good.client.close();
    assert.equal(withKey.isError, false, withKey.text);
    assert.equal(withKey.fm.status, undefined, "the key file was read");
    assert.ok((withKey.fm.results as number) > 0, withKey.text);
    assert.ok(!withKey.text.includes("kagi-file-key-5d1e"));

    await Deno.chmod(keyFile, 0o644);
    const loose = await spawn(flags, { ...replay.env, HOME: home });
    const refused = await callTool(loose.client, "kagi_search", query, { emptyFmOnError: true });
    await loose.client.close();
    assert.match(String(refused.fm.status), /API key file was refused/, refused.text);
    assert.ok(
      String(refused.fm.warning).includes(
        `${keyFile} was not read: its mode 644 lets group or others read it; run chmod 600 on it`,
      ),
      refused.text,
    );
    await stderrSettled(loose.stderr, /kagi_api_key was not read/);
    assert.match(loose.stderr(), /kagi_api_key was not read: its mode 644/);
    assert.match(loose.stderr(), /chmod 600/);
    assert.ok(!loose.stderr().includes("kagi-file-key-5d1e"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
