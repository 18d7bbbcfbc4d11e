/**
 * How the running copy is recognised (a script, npx's throwaway Deno, a JSR
 * specifier, a compiled binary) and the launch command each gets.
 */
import assert from "node:assert/strict";
import {
  commandLine,
  currentInstallation,
  DENIED_NETWORKS,
  launchCommand,
  permissions,
} from "../../lib/install/launch.ts";

Deno.test("launch: a local script run by an installed Deno", () => {
  const inst = currentInstallation("file:///opt/park%20our/main.ts", "/usr/bin/deno", "2.9.6");
  assert.deepEqual(inst, {
    kind: "script",
    deno: "/usr/bin/deno",
    script: "/opt/park our/main.ts",
  });
  const cmd = launchCommand(inst, { configDir: "/home/u/.config/parkour" }, ["--profile", "code"]);
  assert.equal(cmd.command, "/usr/bin/deno");
  assert.deepEqual(cmd.args.slice(0, 2), ["run", "--no-prompt"]);
  assert.ok(cmd.args.includes(`--deny-net=${DENIED_NETWORKS.join(",")}`));
  // The checkout is readable too: its conversion workers load their modules from it.
  assert.ok(cmd.args.includes("--allow-read=/home/u/.config/parkour,/opt/park our"));
  assert.deepEqual(cmd.args.slice(-4), ["/opt/park our/main.ts", "serve", "--profile", "code"]);
  assert.match(commandLine(cmd), /'\/opt\/park our\/main\.ts' serve --profile code$/);
  assert.match(commandLine(cmd), /'--deny-net=[^']*\[::1\]'/, "brackets are quoted for the shell");
});

Deno.test("launch: Deno from npx's cache is written as that binary's absolute path, not npx", () => {
  const deno = "/home/u/.npm/_npx/4f1c/node_modules/deno/deno";
  const inst = currentInstallation("file:///src/parkour/main.ts", deno, "2.9.6");
  assert.deepEqual(inst, {
    kind: "script",
    deno,
    npx: "deno@2.9.6",
    script: "/src/parkour/main.ts",
  });
  // A client started from a dock has no shell PATH: neither npx nor node need be found.
  const cmd = launchCommand(inst);
  assert.equal(cmd.command, deno);
  assert.deepEqual(cmd.args.slice(0, 2), ["run", "--no-prompt"]);
});

Deno.test("launch: a JSR run is written as its program entry's jsr: specifier with the version", () => {
  const inst = currentInstallation(
    "https://jsr.io/@parkour/mcp/0.1.0/main.ts",
    "/usr/local/bin/deno",
    "2.9.6",
  );
  assert.equal(inst.kind === "script" && inst.script, "jsr:@parkour/mcp@0.1.0/cli");
});

Deno.test("launch: a compiled binary is written as its own path, flags baked in", () => {
  const inst = currentInstallation(
    "file:///tmp/deno-compile-parkour/parkour.js",
    "/opt/parkour/parkour",
    "2.9.6",
  );
  assert.deepEqual(inst, { kind: "binary", path: "/opt/parkour/parkour" });
  const cmd = launchCommand(inst, { kvPath: "/data/shelf.kv" }, ["--shelf", "kv:/data/shelf.kv"]);
  assert.deepEqual(cmd, {
    command: "/opt/parkour/parkour",
    args: ["serve", "--shelf", "kv:/data/shelf.kv"],
    env: {},
  });
});

Deno.test("launch: each feature adds only its own flags", () => {
  const base = permissions().flags;
  assert.ok(!base.some((f) => /^--allow-(read|write|run|sys)/.test(f)), base.join(" "));
  const kv = permissions({ kvPath: "/data/parkour/shelf.kv" }).flags;
  assert.ok(kv.includes("--allow-read=/data/parkour"));
  assert.ok(kv.includes("--allow-write=/data/parkour"));
  const http = permissions({ mode: "http" }).flags.find((f) => f.startsWith("--deny-net="))!;
  assert.doesNotMatch(http, /[=,](127\.0\.0\.0\/8|0\.0\.0\.0\/8)|\[::1\]/);
  assert.match(http, /10\.0\.0\.0\/8/);
  const open = permissions({ allowPrivate: true }).flags;
  assert.ok(!open.some((f) => f.startsWith("--deny-net")));
  const render = permissions({
    render: {
      executables: ["/opt/chrome/chrome"],
      tmpDir: "/tmp/r",
      browser: "/opt/chrome/chrome",
    },
  });
  assert.ok(render.flags.includes("--allow-run=/opt/chrome/chrome"));
  assert.ok(render.flags.includes("--allow-read=/opt/chrome/chrome,/tmp/r"));
  assert.ok(render.flags.includes("--allow-write=/tmp/r"));
  assert.equal(render.env.PARKOUR_CHROMIUM, "/opt/chrome/chrome");
  assert.equal(render.env.TMPDIR, "/tmp/r");
  // The renderer's proxy listens on 127.0.0.1: only that range leaves the list.
  const renderDeny = render.flags.find((f) => f.startsWith("--deny-net="))!;
  assert.doesNotMatch(renderDeny, /127\.0\.0\.0\/8/);
  assert.match(renderDeny, /=0\.0\.0\.0\/8,10\.0\.0\.0\/8,.*192\.168\.0\.0\/16,\[::1\]$/);
});
