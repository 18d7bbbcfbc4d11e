/**
 * The Reddit API client: OAuth tokens at www.reddit.com, reads at
 * oauth.reddit.com, and errors that say what happened and what to try.
 *
 * - No set-up: a userless token from Reddit's installed-client grant
 *   (`grant_type=https://oauth.reddit.com/grants/installed_client` with a
 *   device id of 20 random letters and digits, Basic auth with a client id
 *   and no secret), as parkour-mcp's web fallback and redlib mint theirs,
 *   with Reddit's own web client id ({@link INSTALLED_CLIENT_ID}) unless
 *   `REDDIT_CLIENT_ID` names an installed app of your own. Reddit retired
 *   the unauthenticated `.json` endpoints on 2026-05-29, so every read goes
 *   through a token. parkour-mcp first tries a mobile grant with a forged
 *   Reddit-for-Android User-Agent and device headers; this server keeps its
 *   honest User-Agent (the design's rule for every request), so it uses the
 *   installed-client grant only.
 * - With `REDDIT_CLIENT_ID` and `REDDIT_CLIENT_SECRET` (or the files
 *   `reddit_client_id` and `reddit_client_secret` in `~/.config/parkour/`):
 *   an application-only token of that app (`grant_type=client_credentials`),
 *   whose rate limit is the app's own.
 * - The token is kept until {@link TOKEN_MARGIN_S} seconds before it
 *   expires; the session headers Reddit answers the grant with
 *   (`x-reddit-loid`, `x-reddit-session`) go with every later request; a
 *   401 mints once more and retries once. Neither secret nor token is ever
 *   logged or echoed.
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
import type { FetchResult, Net } from "../../net/fetch.ts";

/** OAuth API host. */
export const OAUTH_BASE = "https://oauth.reddit.com";
/** Public site (token endpoint). */
export const PUBLIC_BASE = "https://www.reddit.com";
/** Token endpoint. */
export const TOKEN_URL = `${PUBLIC_BASE}/api/v1/access_token`;
/** Seconds before expiry at which a token is minted anew (parkour-mcp refreshes 120 s early). */
export const TOKEN_MARGIN_S = 120;
/** The installed-client grant: a userless token for an app without a secret. */
export const INSTALLED_GRANT = "https://oauth.reddit.com/grants/installed_client";
/**
 * The client id of Reddit's own web client, the one parkour-mcp and redlib
 * mint userless tokens with (an installed app: no secret).
 */
export const INSTALLED_CLIENT_ID = "3XfBJWliHvqACnXrfIYlLw";
/** The session headers of a grant's answer that go with every later request. */
export const SESSION_HEADERS = ["x-reddit-loid", "x-reddit-session"] as const;

const SETUP =
  "to use an app of your own instead, create one at https://www.reddit.com/prefs/apps (type 'script' or 'web app') and set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (or the files reddit_client_id and reddit_client_secret in ~/.config/parkour/)";

/** How this server gets its tokens: an app's id and secret, or an installed client's id. */
export interface RedditGrant {
  /** `app`: client credentials of a script or web app; `userless`: the installed-client grant. */
  kind: "app" | "userless";
  /** The client id. */
  id: string;
  /** The app's secret (`app` only). */
  secret?: string;
}

/**
 * The grant the configuration gives: an app with `REDDIT_CLIENT_ID` and
 * `REDDIT_CLIENT_SECRET`; otherwise the userless grant, with
 * `REDDIT_CLIENT_ID` alone (an installed app) or Reddit's web client id.
 */
export function redditGrant(): RedditGrant {
  const id = credential("REDDIT_CLIENT_ID", "reddit_client_id", false);
  const secret = credential("REDDIT_CLIENT_SECRET", "reddit_client_secret");
  if (id && secret) return { kind: "app", id, secret };
  return { kind: "userless", id: id ?? INSTALLED_CLIENT_ID };
}

/** The configured app credentials, if both are present. */
export function redditCredentials(): { id: string; secret: string } | undefined {
  const g = redditGrant();
  return g.kind === "app" ? { id: g.id, secret: g.secret! } : undefined;
}

/** Which grant answered: an app's token, or a userless one. */
export type Access = "oauth" | "userless";

/** A device id for the installed-client grant: 20 random letters and digits. */
export function deviceId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

/** A token and what goes with it. */
interface Token {
  value: string;
  expires: number;
  session: Record<string, string>;
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
        access === "userless"
          ? `Make fewer requests meanwhile; for a budget of your own, ${SETUP}.`
          : "Make fewer requests meanwhile."
      }`,
    );
  }
  if (status === 401) {
    fail(
      access === "userless"
        ? `Reddit refused the access token (HTTP 401) while reading ${what}, even after a new one; try again later, or ${SETUP}`
        : `Reddit refused the access token (HTTP 401) while reading ${what}, even after a new one; check the app's credentials`,
    );
  }
  if (status === 403) {
    fail(`Reddit refused access to ${what} (HTTP 403); it may be private or restricted`);
  }
  if (status === 404) {
    fail(
      `Not found on Reddit: ${what} does not exist, or was deleted (HTTP 404); check the id or name in the URL`,
    );
  }
  if (status >= 500) fail(`Reddit failed (HTTP ${status}) while reading ${what}; try again later`);
  return fail(`Reddit answered HTTP ${status} for ${what}; check the URL`);
}

/** Options of a {@link RedditClient}. */
export interface RedditClientOptions {
  /** The network (the process's by default). */
  net?: () => Net;
  /** The grant (from the configuration by default, read at each mint). */
  grant?: () => RedditGrant;
}

/** Reddit's API with one token at a time: minted on first need, kept, minted again. */
export class RedditClient {
  readonly #net: () => Net;
  readonly #grant: () => RedditGrant;
  #token: Token | undefined;
  #minting: Promise<Token> | undefined;
  /** One device id per client, as an installed app keeps one. */
  readonly #device = deviceId();

  /** Creates a client. */
  constructor(options: RedditClientOptions = {}) {
    this.#net = options.net ?? defaultNet;
    this.#grant = options.grant ?? redditGrant;
  }

  /** Forgets the token (the next request mints one). */
  reset(): void {
    this.#token = undefined;
  }

  async #mint(grant: RedditGrant, signal?: AbortSignal): Promise<Token> {
    const body = grant.kind === "app"
      ? "grant_type=client_credentials"
      : new URLSearchParams({ grant_type: INSTALLED_GRANT, device_id: this.#device }).toString();
    const result = await this.#net().fetch(TOKEN_URL, {
      method: "POST",
      signal,
      retry: false,
      headers: {
        authorization: `Basic ${btoa(`${grant.id}:${grant.secret ?? ""}`)}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body,
    });
    const fail = (why: string): never => {
      throw new NetError("status", `Could not authenticate to Reddit: ${why}`, TOKEN_URL, {
        remote: { status: result.status, contentType: result.contentType },
      });
    };
    const userless =
      "Reddit retired its unauthenticated .json endpoints on 2026-05-29, so this server reads Reddit with a userless token";
    if (result.status === 401 || result.status === 403) {
      fail(
        grant.kind === "app"
          ? `Reddit refused the client credentials (HTTP ${result.status}); check REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (the app's id under its name and its secret at https://www.reddit.com/prefs/apps), or unset both to read without an app`
          : `Reddit refused the userless grant (HTTP ${result.status}). ${userless}; try again later, or ${SETUP}`,
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
        grant.kind === "userless"
          ? `Reddit granted no userless token${
            typeof data.error === "string" ? ` ('${data.error.slice(0, 40)}')` : ""
          }. ${userless}; try again later, or ${SETUP}`
          : data.error === "unsupported_grant_type" || data.error === "invalid_grant"
          ? `Reddit did not grant an application-only token ('${
            String(data.error).slice(0, 40)
          }'); the app must be of type 'script' or 'web app' with a secret`
          : "the token endpoint's answer held no access_token; check the credentials",
      );
    }
    const ttl = typeof data.expires_in === "number" && data.expires_in > 0 ? data.expires_in : 3600;
    const session: Record<string, string> = {};
    for (const name of SESSION_HEADERS) {
      const value = result.headers.get(name);
      // Replayed as sent: a header value of printable ASCII only.
      if (value && /^[\x21-\x7e]{1,4096}$/.test(value)) session[name] = value;
    }
    log(
      "info",
      grant.kind === "app"
        ? "reddit: application-only token acquired"
        : "reddit: userless token acquired (installed-client grant)",
    );
    return { value: data.access_token as string, expires: Date.now() + ttl * 1000, session };
  }

  async #bearer(grant: RedditGrant, signal?: AbortSignal, fresh = false): Promise<Token> {
    const token = this.#token;
    if (!fresh && token && token.expires - TOKEN_MARGIN_S * 1000 > Date.now()) return token;
    // Calls that need a token at once share one mint.
    this.#minting ??= this.#mint(grant, signal).finally(() => (this.#minting = undefined));
    this.#token = await this.#minting;
    return this.#token;
  }

  /** GETs an API path (`/comments/abc?raw_json=1`) at oauth.reddit.com and decodes its JSON. */
  async json(path: string, what: string, signal?: AbortSignal): Promise<RedditAnswer> {
    const grant = this.#grant();
    const access: Access = grant.kind === "app" ? "oauth" : "userless";
    const get = async (fresh: boolean): Promise<FetchResult> => {
      const token = await this.#bearer(grant, signal, fresh);
      return await this.#net().fetch(`${OAUTH_BASE}${path}`, {
        signal,
        headers: {
          accept: "application/json",
          authorization: `Bearer ${token.value}`,
          ...token.session,
        },
      });
    };
    let result = await get(false);
    if (result.status === 401) result = await get(true);
    checkReddit(result, what, access);
    let data: unknown;
    try {
      data = JSON.parse(result.text());
    } catch {
      throw new ContentError(
        `Reddit's answer for ${what} was not JSON (${
          result.contentType || "no type"
        }); try again later`,
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
}

const processClient = new RedditClient();

/** GETs an API path (`/comments/abc?raw_json=1`) with the process's client. */
export function redditJson(
  path: string,
  what: string,
  signal?: AbortSignal,
): Promise<RedditAnswer> {
  return processClient.json(path, what, signal);
}

/** Forgets the cached token (tests). */
export function resetRedditToken(): void {
  processClient.reset();
}
