/**
 * The `doctor` command: which optional parts of the server work under the
 * launch line it was started with. It looks at the permissions Deno
 * granted, the credentials in the environment and in the config folder
 * (their source and file mode, never their value), the headless browser,
 * the KV shelf (a probe write and delete), the tree-sitter grammars and the
 * replay/record switches.
 *
 * Each check has a status: `ok`, `warn`, `off` (not set up; shown as `--`)
 * or `fail` (something the user configured does not work here, such as a
 * KV shelf this line may not write or a credential file it cannot read).
 * The exit code is 1 when any check fails.
 *
 * @module
 */
import type { Flags } from "../flags.ts";
import {
  checkedCredential,
  configDir,
  configFromEnv,
  env,
  envFlag,
  looseMode,
  oneOf,
} from "../config.ts";
import { BIND_NETWORKS, currentInstallation, DENIED_NETWORKS, dropWanted } from "./launch.ts";
import { SERVER_NAME, VERSION } from "../version.ts";

/** How a check came out. */
export type Status = "ok" | "warn" | "off" | "fail";

/** One line of the report. */
export interface Check {
  /** What was checked (`github token`, `kv shelf`, ...). */
  check: string;
  /** The outcome. */
  status: Status;
  /** What was found and, when something is missing, what to do. Never a secret. */
  detail: string;
}

/** Markers of the text report. */
const MARKERS: Record<Status, string> = { ok: "ok", warn: "warn", off: "--", fail: "fail" };

/** The report as text, one `marker  check: detail` line per check. */
export function formatText(checks: readonly Check[]): string {
  return checks.map((c) => `${MARKERS[c.status].padEnd(6)}${c.check}: ${c.detail}`).join("\n");
}

function state(descriptor: Deno.PermissionDescriptor): Deno.PermissionState {
  try {
    return Deno.permissions.querySync(descriptor).state;
  } catch {
    return "denied";
  }
}

const granted = (descriptor: Deno.PermissionDescriptor): boolean => state(descriptor) === "granted";

/** `path` with the home folder written as `~`. */
function tilde(path: string): string {
  const home = env("HOME")?.replace(/\/$/, "");
  return home && (path === home || path.startsWith(`${home}/`))
    ? `~${path.slice(home.length)}`
    : path;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : String(error);
}

function basics(): Check[] {
  const install = currentInstallation();
  const where = install.kind === "binary" ? `binary ${install.path}` : `script ${install.script}`;
  const checks: Check[] = [{
    check: "version",
    status: "ok",
    detail: `${SERVER_NAME} ${VERSION} on Deno ${Deno.version.deno} (${where})`,
  }];
  checks.push(
    granted({ name: "env" })
      ? { check: "environment", status: "ok", detail: "readable (--allow-env)" }
      : {
        check: "environment",
        status: "fail",
        detail: "not readable: every setting and key counts as unset (add --allow-env)",
      },
  );
  try {
    const config = configFromEnv();
    checks.push({
      check: "settings",
      status: "ok",
      detail: `profile ${config.profile}, default output ${config.defaultOutput}`,
    });
  } catch (error) {
    checks.push({ check: "settings", status: "fail", detail: (error as Error).message });
  }
  if (dropWanted()) {
    checks.push({
      check: "privileges",
      status: "ok",
      detail: envFlag("PARKOUR_RENDER")
        ? "serve keeps read, write, run and sys (PARKOUR_RENDER=1) for headless rendering"
        : "serve gives up read, write, run and sys after start-up (credential files are read first); rendering needs PARKOUR_RENDER=1",
    });
  }
  return checks;
}

/** A probe address inside each denied network (its first host). */
function probeHost(network: string): string {
  if (network.startsWith("[")) return network;
  const [base] = network.split("/");
  const octets = base.split(".").map(Number);
  octets[3] += 1;
  return octets.join(".");
}

function network(): Check[] {
  const checks: Check[] = [];
  if (!granted({ name: "net" })) {
    checks.push({
      check: "network",
      status: "fail",
      detail: "--allow-net is not granted: the server cannot fetch anything (add --allow-net)",
    });
    return checks;
  }
  checks.push({ check: "network", status: "ok", detail: "--allow-net granted" });
  const open = DENIED_NETWORKS.filter((n) =>
    state({ name: "net", host: probeHost(n) }) !== "denied"
  );
  if (open.length === 0) {
    checks.push({
      check: "private networks",
      status: "ok",
      detail: `refused at the socket (--deny-net): ${DENIED_NETWORKS.join(", ")}`,
    });
  } else if (open.every((n) => BIND_NETWORKS.includes(n))) {
    checks.push({
      check: "private networks",
      status: "ok",
      detail: `refused at the socket except ${
        open.join(", ")
      } (left open so serve --http can bind; the network layer still refuses them)`,
    });
  } else {
    checks.push({
      check: "private networks",
      status: "warn",
      detail: `reachable at the socket: ${
        open.join(", ")
      }; only the network layer refuses them (add --deny-net=${DENIED_NETWORKS.join(",")})`,
    });
  }
  if (envFlag("MCP_ALLOW_PRIVATE_IPS")) {
    checks.push({
      check: "private addresses",
      status: "warn",
      detail:
        "MCP_ALLOW_PRIVATE_IPS is set: the network layer lets private and reserved addresses through",
    });
  }
  return checks;
}

/** PEM certificates in `text`. */
function pemCount(text: string): number {
  return text.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
}

/**
 * The certificates https trusts. Every connection uses Deno's own root
 * store, which the runtime builds without a permission check from Mozilla's
 * roots (or `DENO_TLS_CA_STORE`), `DENO_CERT` and `NODE_EXTRA_CA_CERTS`
 * (lib/net/transport.ts); Node's https module in Deno asks for sys access
 * "ca" for the same file, which no launch line can grant.
 */
function certificates(): Check[] {
  const stores = env("DENO_TLS_CA_STORE");
  const roots = stores ? `the ${stores} store (DENO_TLS_CA_STORE)` : "Mozilla's root certificates";
  const extras = (["NODE_EXTRA_CA_CERTS", "DENO_CERT"] as const).flatMap((variable) => {
    const path = env(variable);
    return path ? [{ variable, path }] : [];
  });
  if (extras.length === 0) {
    return [{
      check: "tls certificates",
      status: "ok",
      detail:
        `https trusts ${roots}; for a company's own CA set NODE_EXTRA_CA_CERTS (or DENO_CERT) to its PEM file`,
    }];
  }
  return extras.map(({ variable, path }): Check => {
    const check = `tls certificates (${variable})`;
    const how =
      "Deno reads it into its own certificate store, which every https connection here uses, so no permission is needed";
    const why = variable === "NODE_EXTRA_CA_CERTS"
      ? `; Node's https module would ask for sys access "ca" for it, which --allow-sys=ca cannot grant (Deno refuses the flag)`
      : "";
    if (!granted({ name: "read", path })) {
      return {
        check,
        status: "ok",
        detail:
          `${path} is trusted beside ${roots}: ${how}${why} (this line may not read it to count its certificates)`,
      };
    }
    let count: number;
    try {
      count = pemCount(Deno.readTextFileSync(path));
    } catch (error) {
      // A NODE_EXTRA_CA_CERTS file that fails to load is skipped with a warning; a DENO_CERT
      // file that does leaves Deno without its store (fetch fails, Node's TLS keeps Mozilla's).
      const effect = variable === "DENO_CERT"
        ? "Deno cannot build its certificate store, so https trusts at most Mozilla's roots and NODE_EXTRA_CA_CERTS is ignored too"
        : "Deno ignores it, and https to sites signed by that CA fails";
      return {
        check,
        status: variable === "DENO_CERT" ? "fail" : "warn",
        detail: `${path} cannot be read (${
          errorName(error)
        }): ${effect}; point ${variable} at the CA's PEM file, or unset it`,
      };
    }
    if (count === 0) {
      return {
        check,
        status: "warn",
        detail:
          `${path} holds no PEM certificate: Deno ignores it; point ${variable} at the CA's PEM file`,
      };
    }
    return {
      check,
      status: "ok",
      detail: `${path} (${count} certificate${
        count === 1 ? "" : "s"
      }) is trusted beside ${roots}: ${how}${why}`,
    };
  });
}

/** A credential: an environment variable, else a file in the config folder. */
interface Credential {
  check: string;
  variable: string;
  file: string;
  /** The server refuses the file when group or others may read it. */
  refusedWhenShared: boolean;
  /** Only the file's presence counts (the licence acceptance). */
  presence?: boolean;
  /** What it unlocks (every credential is optional). */
  unlocks: string;
}

const CREDENTIALS: readonly Credential[] = [
  {
    check: "github token",
    variable: "GITHUB_TOKEN",
    file: "github_token",
    refusedWhenShared: true,
    unlocks: "GitHub's 5,000 requests an hour instead of 60, and private repositories",
  },
  {
    check: "hugging face token",
    variable: "HF_TOKEN",
    file: "hf_token",
    refusedWhenShared: true,
    unlocks: "gated and private Hugging Face repositories, and higher rate limits",
  },
  {
    check: "kagi key",
    variable: "KAGI_API_KEY",
    file: "kagi_api_key",
    refusedWhenShared: true,
    unlocks: "the kagi_search tool (searches are billed by Kagi)",
  },
  {
    check: "semantic scholar key",
    variable: "S2_API_KEY",
    file: "s2_api_key",
    refusedWhenShared: true,
    unlocks: "a Semantic Scholar rate limit of your own instead of the shared pool",
  },
  {
    check: "semantic scholar licence",
    variable: "S2_ACCEPT_TOS",
    file: "s2_accept_tos",
    refusedWhenShared: false,
    presence: true,
    unlocks: "the semantic_scholar tool (accepting its API licence)",
  },
  {
    check: "reddit client id",
    variable: "REDDIT_CLIENT_ID",
    file: "reddit_client_id",
    refusedWhenShared: false,
    unlocks:
      "a Reddit app of your own (with the secret: its own rate limit; alone: an installed app's userless token) instead of the userless token this server gets without set-up",
  },
  {
    check: "reddit client secret",
    variable: "REDDIT_CLIENT_SECRET",
    file: "reddit_client_secret",
    refusedWhenShared: true,
    unlocks: "a Reddit app of your own (with the client id), with its own rate limit",
  },
];

/** Whether a credential was found (for the Reddit pair). */
type Found = { check: Check; found: boolean };

function credential(c: Credential, dirReadable: boolean): Found {
  const fromEnv = c.presence ? envFlag(c.variable) : env(c.variable) !== undefined;
  if (fromEnv && !c.presence) {
    try {
      checkedCredential(env(c.variable), c.variable);
    } catch (error) {
      return {
        check: { check: c.check, status: "fail", detail: (error as Error).message },
        found: false,
      };
    }
  }
  const ok = (detail: string): Found => ({
    check: { check: c.check, status: "ok", detail },
    found: true,
  });
  if (fromEnv) return ok(c.presence ? `accepted (${c.variable})` : `${c.variable} (environment)`);
  const dir = configDir();
  const path = dir ? `${dir}/${c.file}` : undefined;
  const unset = c.presence
    ? `not accepted: the semantic_scholar tool is off (set ${c.variable}=1${
      path ? ` or create ${tilde(path)}` : ""
    })`
    : `not set; optional, unlocks ${c.unlocks} (set ${c.variable}${
      path ? ` or ${tilde(path)}` : ""
    })`;
  const off = (detail = unset): Found => ({
    check: { check: c.check, status: "off", detail },
    found: false,
  });
  if (!path) return off();
  if (!dirReadable && !granted({ name: "read", path })) {
    return off(`${unset}; ${tilde(dir!)} is not readable under this launch line`);
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return off();
    return {
      check: {
        check: c.check,
        status: "fail",
        detail: `cannot read ${tilde(path)} (${
          errorName(error)
        }): check the folder's owner and mode`,
      },
      found: false,
    };
  }
  if (!info.isFile) {
    return {
      check: { check: c.check, status: "fail", detail: `${tilde(path)} is not a file` },
      found: false,
    };
  }
  const octal = Deno.build.os === "windows" ? undefined : looseMode(info.mode);
  const shared = octal !== undefined;
  if (shared && c.refusedWhenShared) {
    return {
      check: {
        check: c.check,
        status: "warn",
        detail: `${
          tilde(path)
        } is not used: its mode ${octal} lets group or others read it; run chmod 600 ${
          tilde(path)
        } (and replace the key if others could have read it)`,
      },
      found: false,
    };
  }
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    return {
      check: {
        check: c.check,
        status: "fail",
        detail: `${tilde(path)} exists but cannot be read (${
          errorName(error)
        }): check its owner, and run chmod 600 ${tilde(path)}`,
      },
      found: false,
    };
  }
  if (c.presence) return ok(`accepted (${tilde(path)})`);
  if (!text.trim()) {
    return {
      check: { check: c.check, status: "warn", detail: `${tilde(path)} is empty` },
      found: false,
    };
  }
  if (shared) {
    return {
      check: {
        check: c.check,
        status: "warn",
        detail: `${
          tilde(path)
        } (file) is readable by group or others (mode ${octal}); run chmod 600 ${tilde(path)}`,
      },
      found: true,
    };
  }
  return ok(`${tilde(path)} (file)`);
}

function credentials(): Check[] {
  const checks: Check[] = [];
  const dir = configDir();
  let dirReadable = false;
  if (!dir) {
    checks.push({
      check: "config folder",
      status: "off",
      detail: "neither XDG_CONFIG_HOME nor HOME is set: only environment variables are read",
    });
  } else if (!granted({ name: "read", path: dir })) {
    checks.push({
      check: "config folder",
      status: "warn",
      detail: `${
        tilde(dir)
      } is not readable under this launch line: credential files there are ignored (add --allow-read=${dir})`,
    });
  } else {
    dirReadable = true;
    let exists = false;
    try {
      exists = Deno.statSync(dir).isDirectory;
    } catch { /* missing */ }
    checks.push(
      exists ? { check: "config folder", status: "ok", detail: `${tilde(dir)} (readable)` } : {
        check: "config folder",
        status: "off",
        detail: `${tilde(dir)} does not exist (credential files go there, mode 600)`,
      },
    );
  }
  const found = new Map<string, boolean>();
  for (const c of CREDENTIALS) {
    const result = credential(c, dirReadable);
    found.set(c.variable, result.found);
    checks.push(result.check);
  }
  const id = found.get("REDDIT_CLIENT_ID");
  const secret = found.get("REDDIT_CLIENT_SECRET");
  if (id !== secret) {
    checks.push(
      id
        ? {
          check: "reddit",
          status: "warn",
          detail:
            "only the client id is usable: Reddit is read with a userless token of that installed app; an app of type script or web app needs its secret too",
        }
        : {
          check: "reddit",
          status: "warn",
          detail:
            "only the client secret is usable: Reddit needs the id with it, so its links are read with the userless token this server gets without set-up",
        },
    );
  }
  return checks;
}

async function browser(): Promise<Check[]> {
  const { systemChromium, parseEngineChoice } = await import("../render/browser.ts");
  const SYSTEM_CHROMIUM = systemChromium();
  const checks: Check[] = [];
  const choice = parseEngineChoice(env("PLAYWRIGHT_BROWSER"));
  const configured = env("PLAYWRIGHT_BROWSER") !== undefined &&
    env("PLAYWRIGHT_BROWSER")?.toLowerCase() !== "auto";
  if (choice.remark?.kind === "warning") {
    checks.push({ check: "browser choice", status: "warn", detail: choice.remark.text });
  } else if (choice.engine) {
    checks.push({
      check: "browser choice",
      status: "ok",
      detail: `${choice.engine} (PLAYWRIGHT_BROWSER)${
        choice.remark ? `: ${choice.remark.text}` : ""
      }${
        choice.engine === "chromium"
          ? ""
          : `; Playwright's own ${choice.engine} is not checked here`
      }`,
    });
  } else {
    checks.push({
      check: "browser choice",
      status: "off",
      detail: "auto: a system Chromium first, then Playwright's downloads (PLAYWRIGHT_BROWSER)",
    });
  }
  const visible = SYSTEM_CHROMIUM.filter((p) => granted({ name: "read", path: p }));
  const found = visible.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  // A missing browser only matters when the user asked for rendering.
  const missing: Status = configured ? "warn" : "off";
  if (!found) {
    checks.push({
      check: "chromium",
      status: missing,
      detail: visible.length === 0
        ? `not visible under this launch line (no --allow-read on ${
          SYSTEM_CHROMIUM.join(", ")
        }): rendering is off here; see deno task start:render`
        : `not found at ${
          visible.join(", ")
        } (Debian/Ubuntu: apt-get install -y chromium; Playwright's own downloads are not checked)`,
    });
  } else {
    const lacking: string[] = [];
    if (!granted({ name: "run", command: found })) lacking.push(`--allow-run=${found}`);
    if (!granted({ name: "sys", kind: "homedir" })) lacking.push("--allow-sys=homedir");
    const tmp = env("TMPDIR");
    if (!tmp || !granted({ name: "write", path: tmp })) {
      lacking.push("--allow-read and --allow-write on a private TMPDIR");
    }
    checks.push(
      lacking.length === 0
        ? { check: "chromium", status: "ok", detail: `${found} (this launch line may run it)` }
        : {
          check: "chromium",
          status: missing,
          detail: `${found} found; rendering needs ${lacking.join(", ")} (deno task start:render)`,
        },
    );
  }
  for (const variable of ["MCP_RENDER_TIMEOUT_S", "MCP_BROWSER_IDLE_S"]) {
    const value = env(variable);
    if (value !== undefined && !(Number(value) > 0)) {
      checks.push({
        check: "render settings",
        status: "warn",
        detail: `${variable} is not a positive number of seconds; the default is used`,
      });
    }
  }
  return checks;
}

type OpenKv = (path?: string) => Promise<Deno.Kv>;

async function kv(): Promise<Check[]> {
  const { parseShelfSpec } = await import("../shelf/mod.ts");
  const open = (Deno as unknown as { openKv?: OpenKv }).openKv;
  const checks: Check[] = [{
    check: "kv",
    status: typeof open === "function" ? "ok" : "off",
    detail: typeof open === "function"
      ? "Deno KV is available (--unstable-kv)"
      : "Deno KV is off (--unstable-kv is needed for a kv shelf)",
  }];
  let spec;
  try {
    spec = parseShelfSpec(env("PARKOUR_SHELF"), "PARKOUR_SHELF");
  } catch (error) {
    checks.push({ check: "shelf", status: "fail", detail: (error as Error).message });
    return checks;
  }
  if (spec.kind === "memory") {
    checks.push({
      check: "shelf",
      status: "off",
      detail: "in memory (set PARKOUR_SHELF=kv:PATH to keep it across restarts)",
    });
    return checks;
  }
  const label = spec.path ? `kv:${spec.path}` : "kv";
  const fail = (detail: string): Check[] => [
    ...checks,
    { check: "shelf", status: "fail", detail: `${label}: ${detail}` },
  ];
  if (typeof open !== "function") return fail("Deno KV is off: add --unstable-kv");
  const path = spec.path;
  const dir = path ? path.replace(/[\\/][^\\/]*$/, "") || "." : undefined;
  const grant = dir ? `--allow-read=${dir} --allow-write=${dir}` : "";
  if (path && (!granted({ name: "read", path }) || !granted({ name: "write", path }))) {
    return fail(`this launch line may not read and write it: add ${grant}`);
  }
  // A store that did not exist is removed afterwards with its SQLite side files; an
  // existing one (perhaps open in a running server) is left exactly as it is.
  const created: string[] = [];
  if (path) {
    try {
      Deno.statSync(path);
    } catch {
      created.push(path, `${path}-wal`, `${path}-shm`, `${path}-journal`);
    }
    try {
      if (!Deno.statSync(dir!).isDirectory) return fail(`${dir} is not a folder`);
    } catch {
      return fail(`the folder ${dir} does not exist (mkdir -p ${dir})`);
    }
  }
  let store: Deno.Kv | undefined;
  try {
    store = await open.call(Deno, path);
    const key = ["parkour_doctor", crypto.randomUUID()];
    await store.set(key, Date.now());
    const back = await store.get(key);
    await store.delete(key);
    if (back.value === null) return fail("a probe write did not read back");
  } catch (error) {
    const message = String((error as Error).message ?? error).split("\n")[0];
    return fail(`does not open or take a write (${message})${grant ? `; grant ${grant}` : ""}`);
  } finally {
    store?.close();
    // Leave no store behind where there was none.
    for (const file of created) {
      try {
        Deno.removeSync(file);
      } catch { /* never created */ }
    }
  }
  checks.push({
    check: "shelf",
    status: "ok",
    detail: `${label} opens; a probe write and delete succeeded`,
  });
  return checks;
}

async function grammars(): Promise<Check[]> {
  const { CODE_LANGUAGES } = await import("../content/code/languages.ts");
  const { outline } = await import("../content/code/outline.ts");
  const started = performance.now();
  const failures: string[] = [];
  for (const language of CODE_LANGUAGES) {
    try {
      await outline("\n", language);
    } catch (error) {
      failures.push(`${language.id}: ${String((error as Error).message ?? error).split("\n")[0]}`);
    }
  }
  const ms = Math.round(performance.now() - started);
  const total = CODE_LANGUAGES.length;
  const loaded = total - failures.length;
  if (failures.length === 0) {
    return [{ check: "grammars", status: "ok", detail: `${loaded} of ${total} load (${ms} ms)` }];
  }
  // One cause for all (a missing flag) is said once.
  const causes = [...new Set(failures.map((f) => f.slice(f.indexOf(": ") + 2)))];
  return [{
    check: "grammars",
    status: "warn",
    detail: `${loaded} of ${total} load (${ms} ms); code outlines are off for the rest: ${
      causes.length === 1 ? causes[0] : failures.join("; ")
    }`,
  }];
}

function recording(): Check[] {
  const checks: Check[] = [];
  const replay = env("PARKOUR_REPLAY_DIR");
  if (replay) {
    checks.push({
      check: "replay",
      status: "warn",
      detail:
        `answers come from recorded exchanges in ${replay}, not the network (PARKOUR_REPLAY_DIR)`,
    });
  }
  const record = env("PARKOUR_RECORD_DIR");
  if (record) {
    checks.push({
      check: "record",
      status: "warn",
      detail: `exchanges are written to ${record} (PARKOUR_RECORD_DIR)`,
    });
  }
  return checks;
}

/** Runs every check, in report order. */
export async function diagnose(): Promise<Check[]> {
  return [
    ...basics(),
    ...network(),
    ...certificates(),
    ...credentials(),
    ...(await browser()),
    ...(await kv()),
    ...(await grammars()),
    ...recording(),
    ...(await import("./client_report.ts")).clientChecks(),
  ];
}

/** Runs `doctor`; resolves to the exit code (1 when a check failed). */
export async function runDoctor(flags: Flags): Promise<number> {
  const format = typeof flags["--format"] === "string"
    ? oneOf("--format", ["text", "json"] as const, flags["--format"])
    : "text";
  const checks = await diagnose();
  console.log(format === "json" ? JSON.stringify(checks, null, 2) : formatText(checks));
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
