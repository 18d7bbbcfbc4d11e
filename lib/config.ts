/**
 * Configuration: environment variables, profiles and the values the CLI
 * resolves into one {@link Config}. Every variable read here is listed in
 * the README; nothing else in the product reads the environment directly.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { log } from "./log.ts";
import { type Trusted, trusted } from "./trust.ts";

/** Tool-name profiles: `desktop` uses snake_case names, `code` PascalCase. */
export const PROFILES = ["desktop", "code"] as const;
/** A tool-name profile. */
export type Profile = typeof PROFILES[number];

/** Output formats for record-shaped results. */
export const OUTPUT_FORMATS = [
  "markdown",
  "json",
  "toon",
  "pretty",
  "compact",
  "csv",
] as const;
/** An output format for record-shaped results. */
export type OutputFormat = typeof OUTPUT_FORMATS[number];

/** HTTP serving settings. */
export interface HttpConfig {
  /** Address to bind; loopback by default. */
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Bearer token required on `/mcp` when set (required off loopback). */
  token?: string;
  /** Extra allowed `Origin` values (exact origins such as `https://app.example`). */
  allowedOrigins: string[];
  /** Extra allowed `Host` names (without port). */
  allowedHosts: string[];
  /** OAuth resource-server settings (`PARKOUR_AUTH_*`); absent without an issuer. */
  oauth?: OAuthSettings;
  /** Connection limits (lib/server/connections.ts); unset ones keep their defaults. */
  limits: {
    /** `PARKOUR_HTTP_HEADERS_TIMEOUT_MS`: longest wait for a request head. */
    headersTimeoutMs?: number;
    /** `PARKOUR_HTTP_IDLE_TIMEOUT_MS`: longest idle wait between requests. */
    idleTimeoutMs?: number;
    /** `PARKOUR_HTTP_MAX_CONNECTIONS`: most connections served at once. */
    maxConnections?: number;
  };
}

/** OAuth settings of the HTTP service. */
export interface OAuthSettings {
  /** The authorization server's issuer identifier (`PARKOUR_AUTH_ISSUER`). */
  issuer: string;
  /** This server's canonical resource URL, e.g. `https://parkour.example/mcp` (`PARKOUR_AUTH_RESOURCE`). */
  resource: string;
  /** Accepted audiences; the resource by default (`PARKOUR_AUTH_AUDIENCE`, comma-separated). */
  audiences: string[];
  /** Scopes every token must carry (`PARKOUR_AUTH_SCOPES`, space- or comma-separated; `parkour` by default). */
  scopes: string[];
  /** The issuer's JWKS; found through its metadata when absent (`PARKOUR_AUTH_JWKS_URL`). */
  jwksUrl?: string;
}

/** The default scope a token must carry. */
export const DEFAULT_SCOPE = "parkour";

function httpsOrLoopback(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got '${value}'`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new ConfigError(`${name} must be an https URL (http only on loopback), got '${value}'`);
  }
  if (url.hash) throw new ConfigError(`${name} must not have a fragment`);
  return url;
}

/** Reads the OAuth settings from the environment; undefined when no issuer is set. */
export function oauthFromEnv(
  read: (name: string) => string | undefined = env,
): OAuthSettings | undefined {
  const issuer = read("PARKOUR_AUTH_ISSUER");
  if (issuer === undefined) return undefined;
  httpsOrLoopback("PARKOUR_AUTH_ISSUER", issuer);
  const resource = read("PARKOUR_AUTH_RESOURCE");
  if (resource === undefined) {
    throw new ConfigError(
      "PARKOUR_AUTH_ISSUER needs PARKOUR_AUTH_RESOURCE: this server's public URL of /mcp (for example https://parkour.example.com/mcp), the audience tokens are issued for",
    );
  }
  httpsOrLoopback("PARKOUR_AUTH_RESOURCE", resource);
  const jwksUrl = read("PARKOUR_AUTH_JWKS_URL");
  if (jwksUrl !== undefined) httpsOrLoopback("PARKOUR_AUTH_JWKS_URL", jwksUrl);
  const split = (v: string | undefined) => (v ?? "").split(/[\s,]+/).filter(Boolean);
  const audiences = split(read("PARKOUR_AUTH_AUDIENCE"));
  const scopes = split(read("PARKOUR_AUTH_SCOPES") ?? DEFAULT_SCOPE);
  return {
    issuer,
    resource,
    audiences: audiences.length > 0 ? audiences : [resource],
    scopes,
    jwksUrl,
  };
}

/** Everything the server needs to start. */
export interface Config {
  /** Tool-name profile. */
  profile: Profile;
  /** Default output format of record-shaped tools. */
  defaultOutput: OutputFormat;
  /** HTTP settings (used by `serve --http`). */
  http: HttpConfig;
  /** Tools to list (`PARKOUR_TOOLS` or `--tools`: groups, keys or names); all when unset. */
  tools?: string;
  /** Where {@link Config.tools} came from, for its error message. */
  toolsFrom?: string;
  /**
   * Whether the tools' actions that change what the server keeps (the
   * research shelf's confirm, score, note, remove, import and clear) are on
   * ({@link MUTATING_FLAG} or {@link MUTATING_VARIABLE}); off by default.
   */
  mutatingTools: boolean;
}

/** The flag that turns on the actions that change data, as kagi mcp's flag of the same name. */
export const MUTATING_FLAG = "--enable-mutating-tools";
/** The variable that turns them on (`1`, `true`, `yes`, `on`). */
export const MUTATING_VARIABLE = "PARKOUR_ENABLE_MUTATING_TOOLS";

/** Reads an environment variable; `undefined` when unset, blank or not permitted. */
export function env(name: string): string | undefined {
  try {
    const value = Deno.env.get(name)?.trim();
    // An unsubstituted template from a client config (`${...}`) counts as unset.
    if (!value || value.startsWith("${")) return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** Whether an environment variable is set to a truthy word (1, true, yes, on). */
export function envFlag(name: string): boolean {
  const value = env(name)?.toLowerCase();
  return value === "1" || value === "true" || value === "yes" ||
    value === "on";
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

/** Error for a configuration value outside its allowed set. */
export class ConfigError extends Error {
  /** Creates the error; the message is shown to the user as is. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Checks that `value` is one of `allowed`, naming the valid values if not. */
export function oneOf<T extends string>(
  what: string,
  allowed: readonly T[],
  value: string,
): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(
    `invalid ${what} '${value}'; valid values: ${allowed.join(", ")}`,
  );
}

/** Builds the configuration from the environment, before CLI overrides. */
export function configFromEnv(): Config {
  const profile = env("PARKOUR_PROFILE");
  const output = env("PARKOUR_DEFAULT_OUTPUT");
  return {
    profile: profile ? oneOf("PARKOUR_PROFILE", PROFILES, profile) : "desktop",
    defaultOutput: output ? oneOf("PARKOUR_DEFAULT_OUTPUT", OUTPUT_FORMATS, output) : "markdown",
    http: {
      host: "127.0.0.1",
      port: 8765,
      token: env("PARKOUR_HTTP_TOKEN"),
      allowedOrigins: list(env("PARKOUR_HTTP_ALLOWED_ORIGINS")),
      allowedHosts: list(env("PARKOUR_HTTP_ALLOWED_HOSTS")),
      oauth: oauthFromEnv(),
      limits: {
        headersTimeoutMs: positive("PARKOUR_HTTP_HEADERS_TIMEOUT_MS", 10, 3_600_000),
        idleTimeoutMs: positive("PARKOUR_HTTP_IDLE_TIMEOUT_MS", 10, 3_600_000),
        maxConnections: positive("PARKOUR_HTTP_MAX_CONNECTIONS", 1, 1_000_000),
      },
    },
    tools: env("PARKOUR_TOOLS"),
    toolsFrom: "PARKOUR_TOOLS",
    mutatingTools: envFlag("PARKOUR_ENABLE_MUTATING_TOOLS"),
  };
}

/** A whole number from `min` to `max` in the variable `name`; undefined when unset. */
function positive(name: string, min: number, max: number): number | undefined {
  const value = env(name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new ConfigError(
      `invalid ${name} '${value.slice(0, 40)}'; give a whole number from ${min} to ${max}`,
    );
  }
  return n;
}

/**
 * Replaces `{tool:<key>}` placeholders in a description or tip with the
 * tool's name in the active profile. An unknown key is an error, so a typo
 * in a description fails at registration rather than reaching a client.
 */
export function expandToolRefs(
  template: string,
  resolve: (key: string) => string | undefined,
): string {
  return template.replace(/\{tool:([a-z0-9_]+)\}/g, (_, key: string) => {
    const name = resolve(key);
    if (name === undefined) {
      throw new ConfigError(`unknown tool reference {tool:${key}}`);
    }
    return name;
  });
}

/**
 * The folder of the user's parkour files: `$XDG_CONFIG_HOME/parkour`, else
 * `~/.config/parkour`; undefined when neither variable is readable.
 */
export function configDir(): string | undefined {
  const base = env("XDG_CONFIG_HOME") ?? (env("HOME") ? `${env("HOME")}/.config` : undefined);
  return base ? `${base.replace(/\/$/, "")}/parkour` : undefined;
}

/** The files in {@link configDir} the server reads (credentials and the S2 licence marker). */
export const CONFIG_FILES: readonly string[] = [
  "github_token",
  "hf_token",
  "kagi_api_key",
  "s2_api_key",
  "s2_accept_tos",
  "reddit_client_id",
  "reddit_client_secret",
];

interface FileState {
  /** Absolute path. */
  path: string;
  /** Contents, trimmed; undefined when unreadable. */
  text?: string;
  /** Permission bits (null where the OS has none, e.g. Windows). */
  mode: number | null;
}

/** Files read so far: each is read once per process (a changed key needs a restart). */
const read = new Map<string, FileState | undefined>();

function readState(name: string): FileState | undefined {
  const dir = configDir();
  if (!dir) return undefined;
  const path = `${dir}/${name}`;
  let mode: number | null;
  try {
    mode = Deno.statSync(path).mode;
  } catch {
    return undefined;
  }
  try {
    return { path, mode, text: Deno.readTextFileSync(path).trim() };
  } catch {
    return { path, mode };
  }
}

function fileState(name: string): FileState | undefined {
  if (!read.has(name)) read.set(name, readState(name));
  return read.get(name);
}

/**
 * Reads every file of {@link CONFIG_FILES} now, so a server can give up its
 * read permission after start-up (lib/runtime/privileges.ts).
 */
export function preloadConfigFiles(): void {
  for (const name of CONFIG_FILES) fileState(name);
}

/**
 * The permission bits as octal (`644`) when they let group or others read
 * the file, the mode for which credential files are refused; undefined for
 * a private file or where the OS has no modes (Windows).
 */
export function looseMode(mode: number | null): string | undefined {
  return mode !== null && (mode & 0o077) !== 0
    ? (mode & 0o777).toString(8).padStart(3, "0")
    : undefined;
}

/**
 * The trimmed contents of a file in {@link configDir}; undefined when it is
 * missing, empty or not readable (the server runs without read permission
 * unless given `--allow-read` on that folder).
 */
export function configFile(name: string): string | undefined {
  return fileState(name)?.text;
}

/** A credential file's state: its value, or why it was not read. */
export interface SecretFileState {
  /** Its path, when {@link configDir} is known. */
  path?: string;
  /** The value (never logged or shown). */
  value?: string;
  /** Octal permission bits when the file was refused for letting group or others read it. */
  refusedMode?: string;
}

/**
 * A credential file in {@link configDir}, read like {@link configFile} but
 * refused when its mode lets group or others read it: a key others can
 * read is a key to rotate, and using it silently would hide that.
 */
export function secretFileState(name: string): SecretFileState {
  const dir = configDir();
  const state = fileState(name);
  if (!state) return { path: dir ? `${dir}/${name}` : undefined };
  const refusedMode = looseMode(state.mode);
  if (refusedMode) return { path: state.path, refusedMode };
  return { path: state.path, value: state.text || undefined };
}

const refusedSecrets = new Set<string>();

/** A credential file refused for its mode. */
export interface RefusedCredential {
  /** Its path. */
  path: string;
  /** Its permission bits, octal (`644`). */
  mode: string;
}

/** The one sentence about a refused credential file, for the log, the answers and the doctor. */
export function refusedCredentialText(r: RefusedCredential): string {
  return `the credential file ${r.path} was not read: its mode ${r.mode} lets group or others read it; run chmod 600 on it and restart the server (until then requests go without it)`;
}

/** {@link refusedCredentialText} as a trusted frontmatter value. */
export function refusedCredentialWarning(r: RefusedCredential): Trusted {
  return trusted.text`the credential file ${trusted.echo(r.path, 300)} was not read: its mode ${
    trusted.matching(r.mode, /^[0-7]{3}$/)
  } lets group or others read it; run chmod 600 on it and restart the server (until then requests go without it)`;
}

/** The credential files refused while the current tool call ran (see {@link withCredentialLedger}). */
const ledger = new AsyncLocalStorage<Map<string, RefusedCredential>>();

/**
 * Runs `fn` (a tool call) with a ledger of the credential files it was
 * refused, which {@link refusedCredentials} reads back, so the answer says
 * why a key was not used instead of only the log.
 */
export function withCredentialLedger<T>(fn: () => T): T {
  return ledger.run(new Map(), fn);
}

/** The credential files refused so far in the current tool call. */
export function refusedCredentials(): RefusedCredential[] {
  return [...(ledger.getStore()?.values() ?? [])];
}

/**
 * Notes a refused credential file: once on stderr per process, and in the
 * ledger of the current tool call every time.
 */
export function noteRefusedCredential(r: RefusedCredential): void {
  ledger.getStore()?.set(r.path, r);
  if (refusedSecrets.has(r.path)) return;
  refusedSecrets.add(r.path);
  log("warn", refusedCredentialText(r));
}

/**
 * The value of a credential file ({@link secretFileState}); a refused file
 * gives undefined and is noted ({@link noteRefusedCredential}): one warning
 * on stderr naming the fix (`chmod 600`), and a warning in the answer.
 */
export function secretFile(name: string): string | undefined {
  const state = secretFileState(name);
  if (state.refusedMode && state.path) {
    noteRefusedCredential({ path: state.path, mode: state.refusedMode });
  }
  return state.value;
}

/** Visible ASCII without spaces: the shape of every credential, and what any header can carry. */
const CREDENTIAL_SHAPE = /^[\x21-\x7e]+$/;

/**
 * Checks a credential's shape, the one rule for every source: `value` as is
 * when it is visible ASCII without spaces (or undefined), else a
 * {@link ConfigError} naming `where` it came from (the variable or the file)
 * and the fix, and never any part of the value.
 */
export function checkedCredential(value: string | undefined, where: string): string | undefined {
  if (value === undefined || CREDENTIAL_SHAPE.test(value)) return value;
  throw new ConfigError(
    `${where} holds characters no credential contains (a space, a line break, a control or non-ASCII character), so it was not used; set it to the key alone, on one line, without quotes or spaces`,
  );
}

/**
 * A credential: the environment variable `variable`, else the file `file`
 * in {@link configDir} (refused when others may read it, unless `secret` is
 * false: a client id), checked by {@link checkedCredential}; undefined when
 * neither is set. Never logged or shown.
 */
export function credential(variable: string, file: string, secret = true): string | undefined {
  const fromEnv = env(variable);
  if (fromEnv !== undefined) return checkedCredential(fromEnv, variable);
  const value = (secret ? secretFile(file) : configFile(file)) || undefined;
  return checkedCredential(value, secretFileState(file).path ?? file);
}

let s2Accepted: boolean | undefined;

/**
 * Whether the user accepted the Semantic Scholar API licence, which the
 * `semantic_scholar` tool and the interception of semanticscholar.org paper
 * URLs require: `S2_ACCEPT_TOS=1` (true, yes, on), or a file named
 * `s2_accept_tos` in {@link configDir} (its presence is the acceptance).
 * Read once per process.
 */
export function s2LicenceAccepted(): boolean {
  return (s2Accepted ??= envFlag("S2_ACCEPT_TOS") || configFile("s2_accept_tos") !== undefined);
}

/**
 * The Semantic Scholar API key: `S2_API_KEY`, else the file `s2_api_key` in
 * {@link configDir}; undefined for the shared unauthenticated pool. Sent as
 * `x-api-key`; never logged or shown.
 */
export function s2ApiKey(): string | undefined {
  return credential("S2_API_KEY", "s2_api_key");
}

/**
 * The largest response, in tokens, whatever the caller asks for (Claude Code
 * rejects larger tool results): real (o200k) tokens once a view has loaded
 * the tokenizer, the estimate before that. The largest `max_tokens` a request
 * may ask for, and the envelope's cap (`lib/envelope/response.ts`).
 */
export const RESPONSE_TOKEN_CAP = 25_000;

/** The variable that sets the page size limit, in MiB: the default of every call. */
export const PAGE_LIMIT_VARIABLE = "PARKOUR_MAX_PAGE_MB";
/** The CLI flag that sets it for one process. */
export const PAGE_LIMIT_FLAG = "--max-page-mb";
/** Default page size limit: 50 MiB of decoded body. */
export const DEFAULT_PAGE_MAX_MB = 50;
/** The variable that sets the ceiling of a call's own limit (`max_page_mb`), in MiB. */
export const PAGE_CEILING_VARIABLE = "PARKOUR_MAX_PAGE_CEILING_MB";
/** The CLI flag that sets the ceiling for one process. */
export const PAGE_CEILING_FLAG = "--max-page-ceiling-mb";
/** Default ceiling: 200 MiB, or the default limit when that is set higher. */
export const DEFAULT_PAGE_CEILING_MB = 200;
/** The smallest limit a call may ask for, in MiB. */
export const MIN_PAGE_MB = 1;

const MIB = 1024 * 1024;

let pageLimitOverride: number | undefined;
let pageCeilingOverride: number | undefined;

/** Parses a size in MiB (a positive number); undefined when it is not one. */
export function parseMegabytes(value: string): number | undefined {
  const mb = Number(value);
  return /^\d+(?:\.\d+)?$/.test(value.trim()) && mb > 0 ? Math.round(mb * MIB) : undefined;
}

/** Sets the page size limit for this process (the CLI's {@link PAGE_LIMIT_FLAG}), in bytes. */
export function setPageMaxBytes(bytes: number | undefined): void {
  pageLimitOverride = bytes;
}

/** Sets the ceiling of a call's limit for this process (the CLI's {@link PAGE_CEILING_FLAG}), in bytes. */
export function setPageCeilingBytes(bytes: number | undefined): void {
  pageCeilingOverride = bytes;
}

function megabytesFromEnv(variable: string, example: number): number | undefined {
  const value = env(variable);
  if (value === undefined) return undefined;
  const bytes = parseMegabytes(value);
  if (bytes === undefined) {
    throw new ConfigError(
      `invalid ${variable} '${value}'; set it to a size in MiB, such as ${example}`,
    );
  }
  return bytes;
}

/**
 * The most a page's body may hold, decoded, when a call does not ask for
 * another limit, whatever view asked for it (the whole page, an outline, a
 * section, a search, a question): one cap, so a view never fails on a page
 * another view can read. Set by {@link PAGE_LIMIT_FLAG}, else
 * {@link PAGE_LIMIT_VARIABLE} (MiB), else {@link DEFAULT_PAGE_MAX_MB}. A
 * malformed value is an error that names it.
 */
export function pageMaxBytes(): number {
  if (pageLimitOverride !== undefined) return pageLimitOverride;
  return megabytesFromEnv(PAGE_LIMIT_VARIABLE, DEFAULT_PAGE_MAX_MB) ?? DEFAULT_PAGE_MAX_MB * MIB;
}

/**
 * The largest limit a call may ask for with `max_page_mb`: set by
 * {@link PAGE_CEILING_FLAG}, else {@link PAGE_CEILING_VARIABLE} (MiB); unset,
 * {@link DEFAULT_PAGE_CEILING_MB} or the default limit, whichever is larger.
 * A ceiling set below the default limit is an error that names both.
 */
export function pageCeilingBytes(): number {
  const limit = pageMaxBytes();
  const set = pageCeilingOverride ??
    megabytesFromEnv(PAGE_CEILING_VARIABLE, DEFAULT_PAGE_CEILING_MB);
  if (set === undefined) return Math.max(DEFAULT_PAGE_CEILING_MB * MIB, limit);
  if (set < limit) {
    const from = pageCeilingOverride !== undefined ? PAGE_CEILING_FLAG : PAGE_CEILING_VARIABLE;
    const by = pageLimitOverride !== undefined ? PAGE_LIMIT_FLAG : PAGE_LIMIT_VARIABLE;
    throw new ConfigError(
      `${from} (${mib(set)} MiB) is below the default page limit ${by} (${
        mib(limit)
      } MiB); the ceiling bounds what a call may ask, so set it at least as high`,
    );
  }
  return set;
}

/** The variable that sets the conversion deadline, in milliseconds. */
export const CONVERT_DEADLINE_VARIABLE = "PARKOUR_CONVERT_DEADLINE_MS";
/** The conversion deadline when {@link CONVERT_DEADLINE_VARIABLE} is unset: 20 s. */
export const DEFAULT_CONVERT_DEADLINE_MS = 20_000;
/** The shortest conversion deadline that may be set. */
export const MIN_CONVERT_DEADLINE_MS = 100;
/** The longest conversion deadline that may be set: an hour. */
export const MAX_CONVERT_DEADLINE_MS = 3_600_000;

/**
 * Longest an HTML page may take to convert (HTML to Markdown, its section
 * tree and token counts), in a worker or on the main thread, and a page of
 * text (plain text, Markdown, JSON, XML) its Document:
 * {@link CONVERT_DEADLINE_VARIABLE}, else {@link DEFAULT_CONVERT_DEADLINE_MS}.
 * Past it the page is given up with a `too_slow` error
 * (`lib/content/workers/pool.ts`). A malformed value is an error that names
 * it; the CLI checks it at start.
 */
export function convertDeadlineMs(): number {
  return positive(CONVERT_DEADLINE_VARIABLE, MIN_CONVERT_DEADLINE_MS, MAX_CONVERT_DEADLINE_MS) ??
    DEFAULT_CONVERT_DEADLINE_MS;
}

/** Who shares the page cache: every user of the service, or each principal apart. */
export const CACHE_SCOPES = ["shared", "principal"] as const;
/** A page cache scope. */
export type CacheScope = typeof CACHE_SCOPES[number];
/** The variable that sets the page cache scope. */
export const CACHE_SCOPE_VARIABLE = "PARKOUR_CACHE_SCOPE";
/** The `serve` flag that sets it for one process. */
export const CACHE_SCOPE_FLAG = "--cache-scope";

let cacheScopeOverride: CacheScope | undefined;
let cacheScopeFromEnv: CacheScope | undefined;

/** Sets the page cache scope for this process (the CLI's {@link CACHE_SCOPE_FLAG}). */
export function setCacheScope(scope: CacheScope | undefined): void {
  cacheScopeOverride = scope;
}

/**
 * Who shares the page cache ({@link CACHE_SCOPE_FLAG}, else
 * {@link CACHE_SCOPE_VARIABLE}, else `shared`): with `shared` a page one
 * user of the HTTP service read is served to the next from the cache
 * (`cached: true`, no upstream request); with `principal` the page cache,
 * the loads in flight and the replicas' shared store are kept apart per
 * authenticated principal (lib/net/page_key.ts). A value outside
 * {@link CACHE_SCOPES} is an error that names the variable; the CLI checks
 * it at start.
 */
export function cacheScope(): CacheScope {
  if (cacheScopeOverride !== undefined) return cacheScopeOverride;
  // Read once: every key of every request asks, and the answer must not change under them.
  if (cacheScopeFromEnv === undefined) {
    const value = env(CACHE_SCOPE_VARIABLE);
    cacheScopeFromEnv = value === undefined
      ? "shared"
      : oneOf(CACHE_SCOPE_VARIABLE, CACHE_SCOPES, value);
  }
  return cacheScopeFromEnv;
}

/** A size in bytes as MiB for a message: `50`, `2.5`. */
export function mib(bytes: number): string {
  return String(Number((bytes / MIB).toFixed(2)));
}

/** A size in bytes as a whole number of MiB, rounded up (what a call asks to read it). */
export function megabytes(bytes: number): number {
  return Math.ceil(bytes / MIB - 1e-9);
}

/** The limit of a call, in bytes: `max_page_mb` when it gives one, else {@link pageMaxBytes}. */
export function pageLimitBytes(maxPageMb?: number): number {
  return maxPageMb === undefined ? pageMaxBytes() : Math.round(maxPageMb * MIB);
}
