/**
 * https under a company CA (NODE_EXTRA_CA_CERTS), through the shipped launch
 * lines: a TLS server on 127.0.0.1 whose certificate a throw-away CA signed
 * is read by the CLI (the `fetch` task's flags), the MCP server (the `start`
 * task's) and the HTTP API (the `serve:http` task's, as shipped), with no
 * permission beyond the lines' own. Loopback leaves `--deny-net` for the
 * first two, as in every end-to-end test (the stdio lines refuse it at the
 * socket; tests/install/least_privilege_test.ts checks that), and
 * MCP_ALLOW_PRIVATE_IPS=1 lets the network layer through.
 *
 * Deno's node:https asked for sys access "ca" whenever NODE_EXTRA_CA_CERTS
 * was set, which no flag of these lines can grant; lib/net/transport.ts
 * keeps connections on Deno's own certificate store instead, and `doctor`
 * says so.
 */
import assert from "node:assert/strict";
import { callTool, startServer } from "../support/mcp_client.ts";
import { childEnv, HttpServerProcess, MAIN, ROOT_DIR, taskFlags } from "../support/process.ts";
import { makeTestCa, serveTls, type TestCa } from "../support/tls.ts";

const PAGE = `<!doctype html><html><head><title>Behind the company CA</title></head><body>
<h1>Behind the company CA</h1><p>The marker text is teal-gannet-4417.</p>
<h2>Second part</h2><p>More text.</p></body></html>`;
const MARKER = "teal-gannet-4417";

/** A CA in a temporary folder and a TLS server it vouches for; `run` gets both. */
async function withCa(run: (caFile: string, url: string, ca: TestCa) => Promise<void>) {
  const ca = await makeTestCa();
  const dir = await Deno.makeTempDir({ prefix: "parkour-ca-" });
  const caFile = `${dir}/company-ca.pem`;
  await Deno.writeTextFile(caFile, ca.caPem);
  const server = serveTls(ca, PAGE);
  try {
    await run(caFile, `https://127.0.0.1:${server.addr.port}/`, ca);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

async function cli(flags: string[], args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...flags, MAIN, ...args],
    cwd: ROOT_DIR,
    clearEnv: true,
    env: childEnv(env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("extra CA: the CLI's fetch line reads an https page signed by NODE_EXTRA_CA_CERTS's CA", async () => {
  await withCa(async (caFile, url) => {
    const flags = taskFlags("fetch", true);
    const trusted = await cli(flags, ["fetch", url, "--format", "markdown"], {
      NODE_EXTRA_CA_CERTS: caFile,
      MCP_ALLOW_PRIVATE_IPS: "1",
    });
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, new RegExp(MARKER));
    assert.doesNotMatch(trusted.stderr, /sys access|NotCapable|^\s+at /m);

    // DENO_CERT (Deno's own variable, as --cert) reaches the same store.
    const denoCert = await cli(flags, ["fetch", url, "--format", "markdown"], {
      DENO_CERT: caFile,
      MCP_ALLOW_PRIVATE_IPS: "1",
    });
    assert.equal(denoCert.code, 0, denoCert.stderr);
    assert.match(denoCert.stdout, new RegExp(MARKER));

    // Control: without the CA the certificate is refused, so the CA is what made it work.
    const untrusted = await cli(flags, ["fetch", url], { MCP_ALLOW_PRIVATE_IPS: "1" });
    assert.notEqual(untrusted.code, 0);
    assert.doesNotMatch(untrusted.stdout, new RegExp(MARKER));
    assert.match(untrusted.stderr, /certificate/i);
  });
});

Deno.test("extra CA: the MCP server on the start line reads the page", async () => {
  await withCa(async (caFile, url) => {
    const { client } = await startServer({
      runFlags: taskFlags("start", true),
      replay: false,
      env: { NODE_EXTRA_CA_CERTS: caFile, MCP_ALLOW_PRIVATE_IPS: "1" },
    });
    try {
      const read = await callTool(client, "web_fetch_incisive", { url });
      assert.equal(read.isError, false, read.text);
      assert.match(read.body.join("\n"), new RegExp(MARKER));
    } finally {
      await client.close();
    }
  });
});

Deno.test("extra CA: the HTTP API on the serve:http line, as shipped, reads the page", async () => {
  await withCa(async (caFile, url) => {
    const server = await HttpServerProcess.start(
      MAIN,
      [],
      { NODE_EXTRA_CA_CERTS: caFile, MCP_ALLOW_PRIVATE_IPS: "1" },
      [],
      taskFlags("serve:http", false),
    );
    try {
      const api = new URL("/api", server.url);
      api.searchParams.set("url", url);
      const res = await fetch(api);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.match(text, new RegExp(MARKER));
    } finally {
      await server.stop();
    }
  });
});

Deno.test("extra CA: doctor names the file, how https uses it and why no flag is needed", async () => {
  await withCa(async (caFile) => {
    const flags = taskFlags("doctor", false);
    const env = { NODE_EXTRA_CA_CERTS: caFile };
    const line = (text: string) =>
      text.split("\n").find((l) => l.includes("tls certificates (NODE_EXTRA_CA_CERTS)")) ?? "";

    const shipped = await cli(flags, ["doctor"], env);
    const report = line(shipped.stdout);
    assert.match(report, /^ok /, shipped.stdout);
    assert.ok(report.includes(caFile), report);
    assert.match(report, /Deno reads it into its own certificate store/);
    assert.match(report, /sys access "ca"/);

    // Readable under the line, the file is counted; a file that is not there warns.
    const readable = await cli([...flags, `--allow-read=${caFile}`], ["doctor"], env);
    assert.match(line(readable.stdout), /\(1 certificate\) is trusted beside Mozilla's/);
    const missing = await cli([...flags, `--allow-read=${caFile}.missing`], ["doctor"], {
      NODE_EXTRA_CA_CERTS: `${caFile}.missing`,
    });
    assert.match(line(missing.stdout), /^warn .*cannot be read \(NotFound\): Deno ignores it/);

    const none = await cli(flags, ["doctor"], {});
    assert.match(none.stdout, /tls certificates: https trusts Mozilla's root certificates/);
  });
});
