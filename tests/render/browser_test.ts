/**
 * Browser choice: PLAYWRIGHT_BROWSER values, aliases and unknown names, and
 * the error for an engine that is named but not installed.
 */
import assert from "node:assert/strict";
import {
  loadPlaywright,
  parseEngineChoice,
  pickEngine,
  SYSTEM_CHROMIUM,
} from "../../lib/render/browser.ts";

Deno.test("browser choice: auto, engines, aliases and unknown names", () => {
  assert.deepEqual(parseEngineChoice(undefined), {});
  assert.deepEqual(parseEngineChoice("auto"), {});
  assert.deepEqual(parseEngineChoice(" Chromium "), { engine: "chromium" });
  assert.equal(parseEngineChoice("webkit").engine, "webkit");
  for (
    const [name, engine] of [
      ["chrome", "chromium"],
      ["msedge", "chromium"],
      ["edge", "chromium"],
      ["safari", "webkit"],
      ["gecko", "firefox"],
    ]
  ) {
    const choice = parseEngineChoice(name);
    assert.equal(choice.engine, engine, name);
    assert.equal(choice.remark?.kind, "note");
    assert.match(choice.remark!.text, new RegExp(`'${name}' names a browser`));
  }
  const unknown = parseEngineChoice("netscape");
  assert.equal(unknown.engine, undefined);
  assert.equal(unknown.remark?.kind, "warning");
  assert.match(unknown.remark!.text, /not a known browser.*using auto/);
});

Deno.test("browser choice: a named engine that is not installed is an error with the install command", async () => {
  const pw = await loadPlaywright();
  // Firefox is never installed on the test machines (only Debian's Chromium is).
  let firefoxInstalled = false;
  try {
    firefoxInstalled = Deno.statSync(pw.firefox.executablePath()).isFile;
  } catch { /* not there */ }
  if (firefoxInstalled) {
    console.log("SKIPPED: a Playwright Firefox is installed here");
    return;
  }
  assert.throws(
    () => pickEngine(pw, { engine: "firefox" }),
    /PLAYWRIGHT_BROWSER selects firefox, which is not installed; install one: .*playwright-core@1\.65\.1 install firefox/,
  );
  const chromium = SYSTEM_CHROMIUM.some((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (chromium) assert.equal(pickEngine(pw, {}).engine, "chromium");
  Deno.env.set("MCP_AUTO_INSTALL_BROWSER", "1");
  try {
    assert.throws(
      () => pickEngine(pw, { engine: "firefox" }),
      /MCP_AUTO_INSTALL_BROWSER=1 is set, but automatic browser download is not implemented/,
    );
  } finally {
    Deno.env.delete("MCP_AUTO_INSTALL_BROWSER");
  }
});

Deno.test("browser choice: PARKOUR_CHROMIUM names the browser to use, and a wrong path says so", async () => {
  const pw = await loadPlaywright();
  let downloaded = false;
  try {
    downloaded = Deno.statSync(pw.chromium.executablePath()).isFile;
  } catch { /* not there */ }
  Deno.env.set("PARKOUR_CHROMIUM", "/nonexistent/chrome");
  try {
    if (downloaded) console.log("SKIPPED (wrong path): a Playwright Chromium is installed here");
    else {
      assert.throws(
        () => pickEngine(pw, { engine: "chromium" }),
        /PARKOUR_CHROMIUM names \/nonexistent\/chrome, which is not an executable file here/,
      );
    }
    const real = SYSTEM_CHROMIUM.find((p) => {
      try {
        return Deno.statSync(p).isFile;
      } catch {
        return false;
      }
    });
    if (!real) {
      console.log("SKIPPED (named path): no system Chromium here");
      return;
    }
    // The last system path is the real binary behind Debian's wrapper: naming it picks it.
    Deno.env.set("PARKOUR_CHROMIUM", SYSTEM_CHROMIUM.at(-1)!);
    const picked = pickEngine(pw, {});
    assert.equal(picked.executable, SYSTEM_CHROMIUM.at(-1));
    assert.equal(picked.system, true);
  } finally {
    Deno.env.delete("PARKOUR_CHROMIUM");
  }
});
