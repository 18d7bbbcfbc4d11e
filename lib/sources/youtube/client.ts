/**
 * The Innertube client: `youtubei.js` (a maintained library that follows
 * YouTube's client names, versions, headers and visitor data), with every
 * request it makes sent through {@link defaultNet} by a `fetch` of ours, so
 * address checks, limits, retries and the replay of recorded exchanges apply
 * to it as to every other source. The library builds the requests; the
 * answers are read by this folder's readers, which look for renderers
 * anywhere in the answer and so survive layout changes around them.
 *
 * The session is made locally (no request for it) and without the player
 * script (no deciphering: captions come from the player's track URLs), once
 * per process, on first use; the library is imported then too.
 *
 * @module
 */
import type { Innertube } from "youtubei.js";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import type { FetchResult } from "../../net/fetch.ts";
import { fetchThrough } from "../../net/fetch_api.ts";
import { ContentError, SourceError } from "../../errors.ts";

/** What a failed status means for the person asking, by status. */
export function statusError(status: number, url: string): SourceError {
  if (status === 429) {
    return new SourceError(
      "YouTube answered 429 (too many requests; it rate-limits or blocks this address). Wait a few minutes and retry; from a datacenter address, set HTTPS_PROXY to a residential proxy",
      { status },
    );
  }
  if (status >= 500) {
    return new SourceError(
      `YouTube answered ${status} (a server-side failure); retry in a minute`,
      { status },
    );
  }
  const path = new URL(url).pathname;
  return new SourceError(
    status === 404
      ? `YouTube answered 404 to ${path}: what was asked for does not exist; check the id, handle or URL`
      : `YouTube answered ${status} to ${path}; the video may be gone, or YouTube changed its API — retry later`,
    { status },
  );
}

/** One request through the guarded network; a failed status becomes a {@link SourceError}. */
export async function netRequest(
  url: string,
  init: { method: "GET" | "POST"; body?: string | Uint8Array; headers?: HeadersInit },
  signal?: AbortSignal,
): Promise<FetchResult> {
  const result = await defaultNet().fetch(url, { ...init, signal }).catch((error) => {
    if (error instanceof NetError && error.kind === "status" && error.remote?.status) {
      throw statusError(error.remote.status, url);
    }
    throw error;
  });
  if (result.status >= 400) throw statusError(result.status, url);
  return result;
}

/** A `fetch` for the library: every request through {@link netRequest}. */
export function netFetch(signal?: AbortSignal): typeof fetch {
  return fetchThrough(
    (url, init) =>
      netRequest(url, {
        method: init.method === "POST" ? "POST" : "GET",
        headers: init.headers,
        body: init.body,
      }, init.signal),
    signal,
  );
}

let session: Promise<Innertube> | undefined;

/** The process's Innertube session (made on first use). */
export function innertube(): Promise<Innertube> {
  session ??= (async () => {
    const { Innertube } = await import("youtubei.js");
    return await Innertube.create({
      fetch: netFetch(),
      generate_session_locally: true,
      retrieve_player: false,
      lang: "en",
      location: "US",
    });
  })();
  session.catch(() => session = undefined);
  return session;
}

/** Innertube clients used here: ANDROID for the player (its caption URLs need no PO token), WEB otherwise. */
export type InnertubeClient = "ANDROID" | "WEB";

/**
 * Calls an Innertube endpoint (`/player`, `/search`, `/browse`, `/next`,
 * `/navigation/resolve_url`) with `args` in the body and the library's
 * context for `client`; the answer as JSON.
 */
export async function innertubeCall(
  endpoint: string,
  args: Record<string, unknown>,
  client: InnertubeClient = "WEB",
  signal?: AbortSignal,
): Promise<unknown> {
  signal?.throwIfAborted();
  const yt = await innertube();
  let reply: { data?: unknown };
  try {
    reply = await yt.actions.execute(endpoint, {
      ...args,
      ...(client === "WEB" ? {} : { client }),
      parse: false,
    }) as { data?: unknown };
  } catch (error) {
    if (
      error instanceof SourceError || error instanceof ContentError || error instanceof NetError
    ) {
      throw error;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/json/i.test(message)) {
      throw new ContentError(
        "YouTube's answer was not JSON (a consent or block page?); retry later or from another network",
      );
    }
    throw new SourceError(
      `the YouTube request ${endpoint} failed (${message.slice(0, 160)}); retry later`,
    );
  }
  if (reply.data === undefined || typeof reply.data !== "object") {
    throw new ContentError(
      "YouTube's answer was not JSON (a consent or block page?); retry later or from another network",
    );
  }
  return reply.data;
}
