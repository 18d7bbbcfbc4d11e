/**
 * The headless browser: which engine (`PLAYWRIGHT_BROWSER`), where its
 * executable is (a system Chromium such as Debian's `/usr/bin/chromium`, or
 * a browser Playwright downloaded), launching it once per process, reusing
 * it across renders and closing it after an idle period.
 *
 * Playwright is loaded on the first render, never at start-up.
 *
 * @module
 */
import { env, envFlag } from "../config.ts";
import { SourceError } from "../errors.ts";
import { droppedPermissions } from "../runtime/privileges.ts";
import type { Browser, BrowserType } from "playwright-core";

/** Playwright's engines. */
export const ENGINES = ["chromium", "firefox", "webkit"] as const;

/** A Playwright engine. */
export type Engine = typeof ENGINES[number];

/** The Playwright version in the import map (for install commands). */
export const PLAYWRIGHT_VERSION = "1.65.1";

/** Browser names that mean an engine. */
export const ENGINE_ALIASES: Record<string, Engine> = Object.fromEntries([
  ...[
    "chrome",
    "chrome-beta",
    "chrome-canary",
    "chrome-dev",
    "chrome-for-testing",
    "google-chrome",
    "chromium-browser",
    "edge",
    "microsoft-edge",
    "msedge",
    "msedge-beta",
    "msedge-canary",
    "msedge-dev",
  ].map((name) => [name, "chromium" as Engine]),
  ["safari", "webkit"],
  ["gecko", "firefox"],
  ["moz-firefox", "firefox"],
]);

/** System Chromium executables, tried in order. */
export const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"];

/**
 * The system browsers to try: the one `PARKOUR_CHROMIUM` names (a Chromium
 * or Chrome executable elsewhere, such as a macOS .app or a Fedora path;
 * `install --render` writes it), else {@link SYSTEM_CHROMIUM}.
 */
export function systemChromium(): string[] {
  const own = env("PARKOUR_CHROMIUM");
  return own ? [own] : SYSTEM_CHROMIUM;
}

/** What `PLAYWRIGHT_BROWSER` asks for. */
export interface EngineChoice {
  /** The engine named, or undefined for `auto`. */
  engine?: Engine;
  /** A remark for the caller (an alias was used, or the name was unknown). */
  remark?: { kind: "note" | "warning"; text: string };
}

/** Reads a `PLAYWRIGHT_BROWSER` value. */
export function parseEngineChoice(value: string | undefined): EngineChoice {
  const name = (value ?? "").trim().toLowerCase();
  if (name === "" || name === "auto") return {};
  if ((ENGINES as readonly string[]).includes(name)) return { engine: name as Engine };
  const alias = ENGINE_ALIASES[name];
  if (alias) {
    return {
      engine: alias,
      remark: {
        kind: "note",
        text:
          `PLAYWRIGHT_BROWSER='${name}' names a browser rather than a Playwright engine; using ${alias}, the engine it is built on`,
      },
    };
  }
  return {
    remark: {
      kind: "warning",
      text: `PLAYWRIGHT_BROWSER='${
        name.slice(0, 40)
      }' is not a known browser (use auto, chromium, firefox or webkit); using auto`,
    },
  };
}

/** Thrown when the server lacks a permission the browser needs. */
const PERMISSIONS_HELP =
  "the server was started without the permissions the headless browser needs: add --allow-run=<browser> --allow-read=<browser>,<TMPDIR> --allow-write=<TMPDIR> --allow-sys=homedir (see docs/security.md, Headless rendering; the `start:render` task for the server, `fetch:render` on the command line)";

const DROPPED_HELP =
  "this server gave up the permissions rendering needs after start-up (a compiled binary does, or PARKOUR_DROP_PRIVILEGES=1); set PARKOUR_RENDER=1 in its environment to keep them, and restart it";

function probe(path: string): "yes" | "no" | "denied" {
  try {
    return Deno.statSync(path).isFile ? "yes" : "no";
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return "denied";
    }
    return "no";
  }
}

type Playwright = typeof import("playwright-core");

let playwright: Promise<Playwright> | undefined;

/** Loads playwright-core (once). */
export function loadPlaywright(): Promise<Playwright> {
  // is-wsl, bundled in playwright-core, probes /proc at import time unless this is set
  // (the probe needs --allow-all under Deno; the answer only matters to `open`, never used).
  try {
    if (!Deno.env.get("__IS_WSL_TEST__")) Deno.env.set("__IS_WSL_TEST__", "1");
  } catch { /* no env permission: the import reports it */ }
  const attempt = playwright ??= import("playwright-core").catch((error) => {
    playwright = undefined;
    const message = String((error as Error).message ?? error).split("\n")[0].slice(0, 200);
    const permission = error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied || /Requires \w+ access/.test(message);
    throw new SourceError(
      `could not load Playwright (${message}); ${
        !permission
          ? "the bundle and the binaries download it from the npm registry on the first render: check that registry.npmjs.org is reachable (or its mirror in NPM_CONFIG_REGISTRY), then retry"
          : droppedPermissions().length > 0
          ? DROPPED_HELP
          : PERMISSIONS_HELP
      }`,
      undefined,
      "render",
    );
  });
  return attempt;
}

/** An engine and the executable to launch it with. */
export interface Installed {
  /** The engine. */
  engine: Engine;
  /** Executable path. */
  executable: string;
  /** Whether it is a system browser rather than one Playwright downloaded. */
  system: boolean;
}

/** Whether the last look for a system browser was refused by Deno's permissions. */
let denied = false;

/** The installed engines, in the order auto prefers them. */
export function installedEngines(pw: Playwright): Installed[] {
  const found: Installed[] = [];
  const types: Record<Engine, BrowserType> = {
    chromium: pw.chromium,
    firefox: pw.firefox,
    webkit: pw.webkit,
  };
  // auto: a system Chromium first (kept up to date by the OS), then Playwright's downloads.
  const probes = systemChromium().map((path) => ({ path, found: probe(path) }));
  const system = probes.find((p) => p.found === "yes")?.path;
  if (system) found.push({ engine: "chromium", executable: system, system: true });
  denied = !system && probes.some((p) => p.found === "denied");
  for (const engine of ["webkit", "firefox", "chromium"] as const) {
    let path: string | undefined;
    try {
      path = types[engine].executablePath();
    } catch {
      path = undefined;
    }
    if (path && probe(path) === "yes") found.push({ engine, executable: path, system: false });
  }
  return found;
}

function installHelp(engine: Engine | undefined): string {
  if (denied && droppedPermissions().length > 0) return `or it could not be seen: ${DROPPED_HELP}`;
  if (denied) return `or it could not be seen: ${PERMISSIONS_HELP}`;
  const own = env("PARKOUR_CHROMIUM");
  if (own) {
    return `PARKOUR_CHROMIUM names ${own}, which is not an executable file here; point it at a Chromium or Chrome executable, or unset it to use ${
      SYSTEM_CHROMIUM[0]
    }`;
  }
  const engines = engine ?? "chromium";
  return `install one: on Debian/Ubuntu \`sudo apt-get install -y chromium\` (found at ${
    SYSTEM_CHROMIUM[0]
  }), or \`npx playwright-core@${PLAYWRIGHT_VERSION} install ${engines}\`; then restart the server`;
}

/** Picks the engine to launch, or throws an error that says how to install one. */
export function pickEngine(pw: Playwright, choice: EngineChoice): Installed {
  const installed = installedEngines(pw);
  if (choice.engine) {
    const hit = installed.find((i) => i.engine === choice.engine);
    if (hit) return hit;
    throw new SourceError(
      `PLAYWRIGHT_BROWSER selects ${choice.engine}, which is not installed; ${
        installHelp(choice.engine)
      }${autoInstallRemark()}`,
      undefined,
      "render",
    );
  }
  if (installed.length > 0) return installed[0];
  throw new SourceError(
    `no headless browser is installed; ${installHelp(undefined)}${autoInstallRemark()}`,
    undefined,
    "render",
  );
}

function autoInstallRemark(): string {
  if (envFlag("MCP_AUTO_INSTALL_BROWSER")) {
    return ". MCP_AUTO_INSTALL_BROWSER=1 is set, but automatic browser download is not implemented in this version: install the browser by hand";
  }
  return "";
}

/**
 * Chromium flags: headless, no background traffic of its own, and WebRTC
 * kept to what goes through the proxy (no UDP of its own to any address).
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** Idle time after which the browser is closed (ms), from `MCP_BROWSER_IDLE_S` (default 300). */
export function idleMs(): number {
  const s = Number(env("MCP_BROWSER_IDLE_S"));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 300_000;
}

/** A running browser and what it is. */
export interface Running {
  /** The browser. */
  browser: Browser;
  /** Its engine. */
  engine: Engine;
  /** The remark of the engine choice, if any. */
  remark?: EngineChoice["remark"];
}

let running: Promise<Running> | undefined;
let users = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

async function launch(): Promise<Running> {
  const pw = await loadPlaywright();
  const choice = parseEngineChoice(env("PLAYWRIGHT_BROWSER"));
  const pick = pickEngine(pw, choice);
  const type = pw[pick.engine];
  let browser: Browser;
  try {
    browser = await type.launch({
      executablePath: pick.executable,
      headless: true,
      args: pick.engine === "chromium" ? CHROMIUM_ARGS : [],
      timeout: 60_000,
    });
  } catch (error) {
    throw new SourceError(
      `could not start the browser ${pick.executable}: ${
        String((error as Error).message ?? error).split("\n")[0].slice(0, 300)
      }. The server needs --allow-run for it, --allow-read and --allow-write on TMPDIR and --allow-sys=homedir (see docs/security.md, Headless rendering)`,
      undefined,
      "render",
    );
  }
  browser.on("disconnected", () => {
    running = undefined;
  });
  return { browser, engine: pick.engine, remark: choice.remark };
}

/**
 * Runs `use` with the shared browser, launching it if needed; the browser
 * is closed once no render has used it for {@link idleMs}.
 */
export async function withBrowser<T>(use: (running: Running) => Promise<T>): Promise<T> {
  if (idleTimer !== undefined) {
    clearTimeout(idleTimer);
    idleTimer = undefined;
  }
  users++;
  try {
    const attempt = running ??= launch();
    attempt.catch(() => {
      if (running === attempt) running = undefined;
    });
    return await use(await attempt);
  } finally {
    users--;
    if (users === 0 && running) {
      const timer = setTimeout(() => void closeBrowser(), idleMs());
      Deno.unrefTimer(timer);
      idleTimer = timer;
    }
  }
}

/** Whether a browser is running now (tests, diagnostics). */
export function browserRunning(): boolean {
  return running !== undefined;
}

/** Closes the shared browser, if any. */
export async function closeBrowser(): Promise<void> {
  const current = running;
  running = undefined;
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (!current) return;
  try {
    await (await current).browser.close();
  } catch { /* it failed to start or is gone */ }
}
