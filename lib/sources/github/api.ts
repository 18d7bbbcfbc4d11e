/**
 * The GitHub REST API client: the token, requests through the one network
 * door, errors that say what to do, and rate-limit warnings.
 *
 * - Token: `GITHUB_TOKEN`, else the file `github_token` in the config folder
 *   (`~/.config/parkour/github_token`). A token file that group or others
 *   can read is refused, not read (the server does not change the user's
 *   files): the frontmatter warns and says `chmod 600`. The token is sent
 *   as `Authorization: Bearer …` to api.github.com and
 *   raw.githubusercontent.com only, and never logged or echoed.
 * - Errors: 401 (the token is bad), 403/429 rate limits (with the reset
 *   time), other 403s, 404 (missing or private: both said), 422, 5xx.
 * - Rate limit: when `x-ratelimit-remaining` falls below
 *   {@link LOW_REMAINING}, a `warning` fact says how many requests are left
 *   and when the budget resets.
 *
 * @module
 */
import { ContentError } from "../../errors.ts";
import type { DocumentFact } from "../../content/document/document.ts";
import {
  checkedCredential,
  configDir,
  env,
  refusedCredentialText,
  refusedCredentialWarning,
  secretFileState,
} from "../../config.ts";
import { type Trusted, trusted } from "../../trust.ts";
import { log } from "../../log.ts";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import { DEFAULT_MAX_BYTES, type FetchResult } from "../../net/fetch.ts";

/** API base. */
export const GITHUB_API = "https://api.github.com";
/** Raw file host. */
export const GITHUB_RAW = "https://raw.githubusercontent.com";
/** Remaining requests below which answers warn. */
export const LOW_REMAINING = 10;
/** The API version the client speaks. */
export const API_VERSION = "2022-11-28";

/** The token and what reading it said. */
export interface TokenState {
  /** The token, if one is configured and readable. */
  token?: string;
  /** Where it came from. */
  from?: "env" | "file";
  /** A warning about the token file (refused for its permissions). */
  warning?: Trusted;
}

let tokenState: TokenState | undefined;

/** The token file's path. */
export function tokenFilePath(): string | undefined {
  const dir = configDir();
  return dir ? `${dir}/github_token` : undefined;
}

/** Reads the token once per process (see the module notes). */
export function githubToken(): TokenState {
  if (tokenState) return tokenState;
  const fromEnv = checkedCredential(env("GITHUB_TOKEN"), "GITHUB_TOKEN");
  if (fromEnv) return (tokenState = { token: fromEnv, from: "env" });
  const file = secretFileState("github_token");
  const path = file.path;
  if (path && file.refusedMode) {
    const refused = { path, mode: file.refusedMode };
    log("warn", `github: ${refusedCredentialText(refused)}`);
    return (tokenState = { warning: refusedCredentialWarning(refused) });
  }
  const token = checkedCredential(file.value, path ?? "github_token");
  return (tokenState = token ? { token, from: "file" } : {});
}

function authHeaders(): Record<string, string> {
  const { token } = githubToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Rate-limit state from a response's headers. */
export interface RateLimit {
  /** Requests left. */
  remaining: number;
  /** The hourly budget. */
  limit: number;
  /** Reset time, epoch seconds. */
  reset?: number;
}

/** The rate-limit headers of a response, if present. */
export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const remaining = Number(headers.get("x-ratelimit-remaining") ?? NaN);
  const limit = Number(headers.get("x-ratelimit-limit") ?? NaN);
  if (!Number.isFinite(remaining) || !Number.isFinite(limit)) return undefined;
  const reset = Number(headers.get("x-ratelimit-reset") ?? NaN);
  return { remaining, limit, reset: Number.isFinite(reset) ? reset : undefined };
}

function resetText(reset: number | undefined): Trusted {
  if (reset === undefined) return trusted.text`within the hour`;
  const iso = new Date(reset * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const minutes = Math.max(0, Math.ceil((reset * 1000 - Date.now()) / 60_000));
  return trusted.text`at ${trusted.isoDate(iso)} (in about ${minutes} min)`;
}

/** Warnings a response's rate-limit state calls for (and the token file's). */
export function rateWarnings(headers: Headers | undefined): DocumentFact[] {
  const facts: DocumentFact[] = [];
  const state = githubToken();
  if (state.warning) facts.push({ key: "warning", value: state.warning });
  const rate = headers ? rateLimitOf(headers) : undefined;
  if (rate && rate.remaining < LOW_REMAINING) {
    facts.push({
      key: "warning",
      value: state.token
        ? trusted
          .text`GitHub API rate limit low: ${rate.remaining} of ${rate.limit} requests left; the budget resets ${
          resetText(rate.reset)
        }`
        : trusted
          .text`GitHub API rate limit low: ${rate.remaining} of ${rate.limit} requests left; the budget resets ${
          resetText(rate.reset)
        }; set GITHUB_TOKEN (or ~/.config/parkour/github_token, mode 600) for 5,000 requests an hour`,
    });
  }
  return facts;
}

/** What the request was for, in error messages ("repository python/cpython"). */
export type What = string;

function bodyMessage(result: FetchResult): string | undefined {
  try {
    const json = JSON.parse(result.text()) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(json.errors) ? json.errors : [];
    const first = errors[0] as { message?: unknown; code?: unknown } | undefined;
    const detail = typeof first?.message === "string" ? first.message : undefined;
    const msg = typeof json.message === "string" ? json.message : undefined;
    return [msg, detail].filter(Boolean).join(": ").slice(0, 300) || undefined;
  } catch {
    return undefined;
  }
}

/** Throws the explained error for a non-2xx GitHub answer. */
export function checkGithub(result: FetchResult, what: What): FetchResult {
  const status = result.status;
  if (status >= 200 && status < 300) return result;
  const { token } = githubToken();
  const remote = { status, body: result.text(), contentType: result.contentType };
  const fail = (message: string): never => {
    throw new NetError("status", message, result.url, { remote });
  };
  const rate = rateLimitOf(result.headers);
  if (status === 401 && !token) {
    fail(
      `GitHub requires authentication to read ${what} (HTTP 401); set GITHUB_TOKEN (or ~/.config/parkour/github_token, mode 600) to a personal access token`,
    );
  }
  if (status === 401) {
    fail(
      `GitHub refused the token (HTTP 401, bad credentials): the token in ${
        githubToken().from === "file" ? "~/.config/parkour/github_token" : "GITHUB_TOKEN"
      } is invalid, expired or revoked; replace it with a valid token, or remove it to read public data without one (60 requests an hour)`,
    );
  }
  if (
    status === 429 ||
    (status === 403 && (rate?.remaining === 0 || result.headers.has("retry-after")))
  ) {
    const reset = rate?.reset ??
      (Date.now() / 1000 + Number(result.headers.get("retry-after") ?? 60));
    fail(
      `GitHub rate limit reached (HTTP ${status}) while reading ${what}; the budget resets ${
        String(resetText(reset))
      }. ${
        token
          ? "Wait until then, or make fewer requests (search has its own, smaller limit of 30 an hour per minute window)."
          : "Unauthenticated requests get 60 an hour: set GITHUB_TOKEN (or ~/.config/parkour/github_token, mode 600) for 5,000."
      }`,
    );
  }
  if (status === 403) {
    const need = result.headers.get("x-accepted-oauth-scopes");
    const have = result.headers.get("x-oauth-scopes");
    const scopes = need && /^[a-z:_, -]{1,200}$/.test(need)
      ? ` This endpoint needs the scope '${need}'; the token has '${
        /^[a-z:_, -]{0,200}$/.test(have ?? "") ? have : "?"
      }'.`
      : "";
    fail(
      `GitHub refused access to ${what} (HTTP 403).${scopes} ${
        token ? "The token may lack permission for it." : "It may need a token: set GITHUB_TOKEN."
      }`,
    );
  }
  if (status === 404) {
    fail(
      `Not found on GitHub: ${what} does not exist, or it is private. ${
        token
          ? "If it is private, the configured token has no access to it."
          : "Private repositories need a token with access: set GITHUB_TOKEN."
      } Check the spelling of the owner, repository, number or path.`,
    );
  }
  if (status === 422) {
    fail(
      `GitHub rejected the request for ${what} (HTTP 422: ${
        bodyMessage(result) ?? "invalid request"
      }); check the query syntax (see https://docs.github.com/search-github/searching-on-github)`,
    );
  }
  if (status >= 500) fail(`GitHub failed (HTTP ${status}) while reading ${what}; try again later`);
  return fail(`GitHub answered HTTP ${status} for ${what}; check the request`);
}

/** Options of a request. */
export interface RequestOptions {
  /** Cancels it. */
  signal?: AbortSignal;
  /** Accept header (the JSON media type by default). */
  accept?: string;
  /** Cap on the body. */
  maxBytes?: number;
  /** Deadline. */
  deadlineMs?: number;
}

/** A decoded JSON answer and its headers. */
export interface JsonAnswer<T> {
  /** The decoded body. */
  data: T;
  /** Response headers (rate limit). */
  headers: Headers;
}

/** GETs an API path (`/repos/o/r`) and decodes its JSON; errors explained. */
export async function githubJson<T>(
  path: string,
  what: What,
  options: RequestOptions = {},
): Promise<JsonAnswer<T>> {
  const result = checkGithub(
    await defaultNet().fetch(`${GITHUB_API}${path}`, {
      signal: options.signal,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      deadlineMs: options.deadlineMs,
      headers: {
        accept: options.accept ?? "application/vnd.github+json",
        "x-github-api-version": API_VERSION,
        ...authHeaders(),
      },
    }),
    what,
  );
  let data: T;
  try {
    data = JSON.parse(result.text()) as T;
  } catch {
    throw new ContentError(
      `GitHub's answer for ${what} was not JSON (${
        result.contentType || "no type"
      }); try again later`,
    );
  }
  if (data === null || typeof data !== "object") {
    throw new ContentError(`GitHub's answer for ${what} was not the JSON object it documents`);
  }
  return { data, headers: result.headers };
}

/**
 * POSTs a GraphQL query (discussions have no REST API). GitHub's GraphQL
 * endpoint needs a token, so without one this says how to set it up. A
 * query error of type NOT_FOUND reads as a 404.
 */
export async function githubGraphql<T>(
  query: string,
  variables: Record<string, unknown>,
  what: What,
  options: RequestOptions = {},
): Promise<JsonAnswer<T>> {
  if (!githubToken().token) {
    throw new NetError(
      "status",
      `GitHub serves ${what} only through its GraphQL API, which needs a token: set GITHUB_TOKEN (or ~/.config/parkour/github_token, mode 600); a token with no scopes reads public repositories`,
      `${GITHUB_API}/graphql`,
      { remote: { status: 401 } },
    );
  }
  const result = checkGithub(
    await defaultNet().fetch(`${GITHUB_API}/graphql`, {
      method: "POST",
      signal: options.signal,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      deadlineMs: options.deadlineMs,
      retry: false,
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        ...authHeaders(),
      },
      body: JSON.stringify({ query, variables }),
    }),
    what,
  );
  let data: { data?: T; errors?: { type?: string; message?: string }[] };
  try {
    data = JSON.parse(result.text());
  } catch {
    throw new ContentError(`GitHub's answer for ${what} was not JSON; try again later`);
  }
  const error = Array.isArray(data?.errors) ? data.errors[0] : undefined;
  if (error) {
    throw new NetError(
      "status",
      error.type === "NOT_FOUND"
        ? `Not found on GitHub: ${what} does not exist, or it is private (or the token has no access to it). Check the owner, repository and number.`
        : `GitHub's GraphQL API refused the query for ${what}: ${
          String(error.message ?? error.type ?? "error").slice(0, 200)
        }`,
      result.url,
      { remote: { status: error.type === "NOT_FOUND" ? 404 : 422 } },
    );
  }
  if (data?.data === undefined || data.data === null) {
    throw new ContentError(`GitHub's answer for ${what} held no data; try again later`);
  }
  return { data: data.data, headers: result.headers };
}

/** GETs a raw file; undefined on 404 when `missingOk`. */
export async function githubRaw(
  url: string,
  what: What,
  options: RequestOptions & { missingOk?: boolean } = {},
): Promise<FetchResult | undefined> {
  const result = await defaultNet().fetch(url, {
    signal: options.signal,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    deadlineMs: options.deadlineMs,
    headers: { accept: "*/*", ...authHeaders() },
  });
  if (result.status === 404 && options.missingOk) return undefined;
  return checkGithub(result, what);
}

/** Runs an optional enrichment: its failure is logged and treated as absent. */
export async function optional<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    log("debug", `github: ${name} not available`, error instanceof Error ? error.message : error);
    return undefined;
  }
}
