/**
 * The Reddit API client: application-only OAuth when credentials are
 * configured, the public JSON endpoints otherwise, and errors that say what
 * happened and what to try.
 *
 * - Credentials: `REDDIT_CLIENT_ID` and `REDDIT_CLIENT_SECRET`, else the
 *   files `reddit_client_id` and `reddit_client_secret` in the config folder
 *   (`~/.config/parkour/`). With both, the server mints an application-only
 *   token (`grant_type=client_credentials`, Reddit's userless flow) at
 *   www.reddit.com/api/v1/access_token, keeps it until a minute before it
 *   expires, and reads oauth.reddit.com with it; a 401 mints once more.
 *   Without them it reads www.reddit.com/<path>.json. Neither secret nor
 *   token is ever logged or echoed.
 * - The User-Agent is the server's own (from Net); Reddit's 2 s spacing is
 *   in the limiter's host table.
 *
 * @module
 */
import { ContentError } from "../../errors.ts";
import { credential } from "../../config.ts";
import { log } from "../../log.ts";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import type { FetchResult } from "../../net/fetch.ts";

/** OAuth API host. */
export const OAUTH_BASE = "https://oauth.reddit.com";
/** Public site (JSON endpoints, token endpoint). */
export const PUBLIC_BASE = "https://www.reddit.com";
/** Token endpoint. */
export const TOKEN_URL = `${PUBLIC_BASE}/api/v1/access_token`;
/** Seconds before expiry at which a token is minted anew. */
export const TOKEN_MARGIN_S = 60;

const SETUP =
  "create an app at https://www.reddit.com/prefs/apps (type 'script' or 'web app') and set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (or the files reddit_client_id and reddit_client_secret in ~/.config/parkour/)";

/** The configured client credentials, if both are present. */
export function redditCredentials(): { id: string; secret: string } | undefined {
  const id = credential("REDDIT_CLIENT_ID", "reddit_client_id", false);
  const secret = credential("REDDIT_CLIENT_SECRET", "reddit_client_secret");
  return id && secret ? { id, secret } : undefined;
}

/** Which access path answered. */
export type Access = "oauth" | "public";

let token: { value: string; expires: number } | undefined;

async function mint(
  creds: { id: string; secret: string },
  signal?: AbortSignal,
): Promise<string> {
  const result = await defaultNet().fetch(TOKEN_URL, {
    method: "POST",
    signal,
    retry: false,
    headers: {
      authorization: `Basic ${btoa(`${creds.id}:${creds.secret}`)}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: "grant_type=client_credentials",
  });
  const fail = (why: string): never => {
    throw new NetError("status", `Could not get a Reddit access token: ${why}`, TOKEN_URL, {
      remote: { status: result.status, contentType: result.contentType },
    });
  };
  if (result.status === 401 || result.status === 403) {
    fail(
      `Reddit refused the client credentials (HTTP ${result.status}); check REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (the app's id under its name and its secret at https://www.reddit.com/prefs/apps), or unset both to use the public JSON endpoints`,
    );
  }
  if (result.status === 429) {
    fail("Reddit is rate limiting token requests (HTTP 429); try again in a minute");
  }
  if (result.status < 200 || result.status >= 300) {
    fail(`the token endpoint answered HTTP ${result.status}; try again later`);
  }
  let data: { access_token?: unknown; expires_in?: unknown; error?: unknown };
  try {
    data = JSON.parse(result.text());
  } catch {
    return fail("the token endpoint's answer was not JSON; try again later");
  }
  if (typeof data.access_token !== "string" || !data.access_token) {
    fail(
      data.error === "unsupported_grant_type" || data.error === "invalid_grant"
        ? `Reddit did not grant an application-only token ('${
          String(data.error).slice(0, 40)
        }'); the app must be of type 'script' or 'web app' with a secret`
        : "the token endpoint's answer held no access_token; check the credentials",
    );
  }
  const ttl = typeof data.expires_in === "number" && data.expires_in > 0 ? data.expires_in : 3600;
  token = { value: data.access_token as string, expires: Date.now() + ttl * 1000 };
  log("info", "reddit: application-only token acquired");
  return token.value;
}

async function bearer(
  creds: { id: string; secret: string },
  signal?: AbortSignal,
  fresh = false,
): Promise<string> {
  if (!fresh && token && token.expires - TOKEN_MARGIN_S * 1000 > Date.now()) return token.value;
  token = undefined;
  return await mint(creds, signal);
}

/** A decoded answer and how it was reached. */
export interface RedditAnswer {
  /** Decoded JSON. */
  data: unknown;
  /** The path that answered. */
  access: Access;
}

function reasonOf(result: FetchResult): { reason?: string; message?: string } {
  try {
    const json = JSON.parse(result.text()) as Record<string, unknown>;
    return {
      reason: typeof json.reason === "string" ? json.reason : undefined,
      message: typeof json.message === "string" ? json.message : undefined,
    };
  } catch {
    return {};
  }
}

function resetText(result: FetchResult): string {
  const reset = Number(result.headers.get("x-ratelimit-reset") ?? NaN);
  const after = Number(result.headers.get("retry-after") ?? NaN);
  const seconds = Number.isFinite(reset) ? reset : Number.isFinite(after) ? after : undefined;
  return seconds !== undefined
    ? `the budget resets in ${
      Math.ceil(seconds)
    } s (Reddit allows about 100 requests a minute per client)`
    : "wait a minute before trying again";
}

/** Throws the explained error for a non-2xx answer about `what`. */
export function checkReddit(result: FetchResult, what: string, access: Access): FetchResult {
  const status = result.status;
  if (status >= 200 && status < 300) return result;
  const remote = { status, body: result.text().slice(0, 2000), contentType: result.contentType };
  const fail = (message: string): never => {
    throw new NetError("status", message, result.url, { remote });
  };
  const { reason } = reasonOf(result);
  if (reason === "private") {
    fail(
      `${what} is a private subreddit (HTTP ${status}): only its approved members can read it, and this server reads Reddit without an account`,
    );
  }
  if (reason === "quarantined") {
    fail(
      `${what} is quarantined (HTTP ${status}): Reddit shows it only to signed-in users who opt in on the website, which this server cannot do`,
    );
  }
  if (reason === "gated") {
    fail(
      `${what} is gated (HTTP ${status}): Reddit asks signed-in users to confirm before viewing it, which this server cannot do`,
    );
  }
  if (reason === "banned") {
    fail(`${what} was banned by Reddit (HTTP ${status}); its posts are no longer served`);
  }
  if (status === 429) {
    fail(
      `Reddit rate limit reached (HTTP 429) while reading ${what}; ${resetText(result)}. ${
        access === "public"
          ? `The public JSON endpoints allow few requests: for a larger budget, ${SETUP}.`
          : "Make fewer requests meanwhile."
      }`,
    );
  }
  if (status === 401) {
    fail(
      `Reddit refused the access token (HTTP 401) while reading ${what}, even after a new one; check the app's credentials`,
    );
  }
  if (status === 403) {
    fail(
      access === "public"
        ? `Reddit refused the public JSON endpoint for ${what} (HTTP 403); Reddit often blocks unauthenticated requests from servers: ${SETUP}`
        : `Reddit refused access to ${what} (HTTP 403); it may be private or restricted`,
    );
  }
  if (status === 404) {
    fail(
      `Not found on Reddit: ${what} does not exist, or was deleted (HTTP 404); check the id or name in the URL`,
    );
  }
  if (status >= 500) fail(`Reddit failed (HTTP ${status}) while reading ${what}; try again later`);
  return fail(`Reddit answered HTTP ${status} for ${what}; check the URL`);
}

/** GETs an API path (`/comments/abc?raw_json=1`) and decodes its JSON. */
export async function redditJson(
  path: string,
  what: string,
  signal?: AbortSignal,
): Promise<RedditAnswer> {
  const creds = redditCredentials();
  const access: Access = creds ? "oauth" : "public";
  const get = async (fresh: boolean): Promise<FetchResult> => {
    if (!creds) {
      const [p, q] = path.split("?");
      return await defaultNet().fetch(`${PUBLIC_BASE}${p}.json${q ? `?${q}` : ""}`, {
        signal,
        headers: { accept: "application/json" },
      });
    }
    return await defaultNet().fetch(`${OAUTH_BASE}${path}`, {
      signal,
      headers: {
        accept: "application/json",
        authorization: `Bearer ${await bearer(creds, signal, fresh)}`,
      },
    });
  };
  let result = await get(false);
  if (creds && result.status === 401) result = await get(true);
  checkReddit(result, what, access);
  let data: unknown;
  try {
    data = JSON.parse(result.text());
  } catch {
    throw new ContentError(
      `Reddit's answer for ${what} was not JSON (${result.contentType || "no type"}); ${
        access === "public"
          ? `Reddit may be blocking unauthenticated requests: ${SETUP}`
          : "try again later"
      }`,
    );
  }
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const d = data as Record<string, unknown>;
    if (typeof d.error === "number" || (typeof d.reason === "string" && !("kind" in d))) {
      throw new ContentError(
        `Reddit answered with an error for ${what}: ${
          String(d.message ?? d.reason ?? d.error).slice(0, 100)
        }`,
      );
    }
  }
  return { data, access };
}

/** Forgets the cached token (tests). */
export function resetRedditToken(): void {
  token = undefined;
}
