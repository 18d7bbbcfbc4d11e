/**
 * YouTube through its Innertube API (the JSON API the apps use): requests
 * are built by `youtubei.js` and sent through {@link Net} (see `client.ts`),
 * so tests replay recorded exchanges, matched by the fields of each body.
 *
 * - {@link parseYoutubeUrl}: video ids and the accepted URL forms;
 * - {@link fetchPlayer}: `POST /youtubei/v1/player` with the ANDROID client
 *   context (the WEB client's caption URLs now need a PO token), mapped to
 *   {@link VideoInfo} or a a `SourceError`, `ContentError` or `ToolError` that says what to try;
 * - {@link fetchCaptions}: one caption track as timed cues (timedtext json3);
 * - {@link searchVideos}, {@link fetchPlaylist} and {@link fetchChannel}:
 *   `/search`, `/navigation/resolve_url` and `/browse` with the WEB client
 *   context; entries are read from any video renderer in the answer, so
 *   layout changes around them do not matter.
 *
 * @module
 */
import { innertubeCall, netRequest } from "./client.ts";
import { ContentError, SourceError, ToolError } from "../../errors.ts";

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

/** The URL forms the tools accept, for error messages. */
export const ACCEPTED_FORMS =
  "accepted: an 11-character video id (dQw4w9WgXcQ), https://www.youtube.com/watch?v=<id>, " +
  "https://youtu.be/<id>, youtube.com/shorts/<id>, /embed/<id>, /live/<id>, m.youtube.com/watch?v=<id>";

/** What a YouTube URL names. */
export type YoutubeTarget =
  | { kind: "video"; id: string }
  | { kind: "channel"; ref: string }
  | { kind: "playlist"; id: string };

/** Parses a video id or a YouTube URL; throws a `ToolError` otherwise. */
export function parseYoutubeUrl(input: string): YoutubeTarget {
  const raw = input.trim();
  if (VIDEO_ID.test(raw)) return { kind: "video", id: raw };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new ToolError(
      `Not a recognized YouTube URL or video id: '${raw.slice(0, 100)}'; ${ACCEPTED_FORMS}`,
    );
  }
  const host = url.hostname.toLowerCase().replace(/^(?:www|m)\./, "");
  if (host === "music.youtube.com") {
    throw new ToolError(
      "music.youtube.com is out of scope; use the video's www.youtube.com/watch?v=<id> URL",
    );
  }
  const parts = url.pathname.split("/").filter(Boolean);
  const check = (id: string | undefined | null): YoutubeTarget => {
    if (id && VIDEO_ID.test(id)) return { kind: "video", id };
    throw new ToolError(
      `'${
        raw.slice(0, 100)
      }' does not hold a valid video id (11 characters of A-Z a-z 0-9 _ -); ${ACCEPTED_FORMS}`,
    );
  };
  if (host === "youtu.be") return check(parts[0]);
  if (host !== "youtube.com" && host !== "youtube-nocookie.com") {
    throw new ToolError(
      `Not a recognized YouTube URL: '${raw.slice(0, 100)}'; ${ACCEPTED_FORMS}`,
    );
  }
  if (parts[0] === "watch") return check(url.searchParams.get("v"));
  if (["shorts", "embed", "v", "live"].includes(parts[0] ?? "")) return check(parts[1]);
  if (parts[0] === "playlist" && url.searchParams.get("list")) {
    return { kind: "playlist", id: url.searchParams.get("list")! };
  }
  if (parts[0]?.startsWith("@") || ["channel", "c", "user"].includes(parts[0] ?? "")) {
    return { kind: "channel", ref: parts.slice(0, parts[0].startsWith("@") ? 1 : 2).join("/") };
  }
  throw new ToolError(`Not a recognized YouTube URL: '${raw.slice(0, 100)}'; ${ACCEPTED_FORMS}`);
}

/** Parses a URL that must name a video; returns its id. */
export function videoId(input: string): string {
  const target = parseYoutubeUrl(input);
  if (target.kind === "video") return target.id;
  throw new ToolError(
    `URL is a ${target.kind}, not a video; pass a video URL (${ACCEPTED_FORMS})`,
  );
}

/** The canonical watch URL of a video. */
export function watchUrl(id: string): string {
  return `https://www.youtube.com/watch?v=${id}`;
}

/** One caption track listed by the player. */
export interface CaptionTrack {
  /** BCP-47-ish language code (en, pt-BR). */
  languageCode: string;
  /** Display name (upstream text). */
  name: string;
  /** Auto-generated (speech recognition). */
  auto: boolean;
  /** The timedtext URL. */
  baseUrl: string;
}

/** A chapter, from the description's timestamp list. */
export interface Chapter {
  /** Start in seconds. */
  start: number;
  /** Title (upstream text). */
  title: string;
}

/** A video's metadata, from the player response. */
export interface VideoInfo {
  /** Video id. */
  id: string;
  /** Title (upstream text). */
  title: string;
  /** Channel name (upstream text). */
  author: string;
  /** Channel id (UC…), when valid. */
  channelId?: string;
  /** Length in seconds. */
  lengthSeconds?: number;
  /** View count. */
  views?: number;
  /** Publish date YYYY-MM-DD, when the response carries one. */
  publishDate?: string;
  /** Live content. */
  live: boolean;
  /** Description (upstream text). */
  description: string;
  /** Keywords (upstream text). */
  keywords: string[];
  /** Caption tracks. */
  tracks: CaptionTrack[];
  /** Chapters from the description. */
  chapters: Chapter[];
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Json : {};
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function runsText(value: unknown): string {
  const v = obj(value);
  if (typeof v.simpleText === "string") return v.simpleText;
  return Array.isArray(v.runs) ? v.runs.map((r) => str(obj(r).text)).join("") : "";
}

function int(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** Explains a non-OK playabilityStatus; returns undefined when playable. */
export function playabilityError(status: Json, id: string): string | undefined {
  const kind = str(status.status);
  if (kind === "OK" || kind === "") return undefined;
  const reason = str(status.reason) ||
    runsText(obj(obj(status.errorScreen).playerErrorMessageRenderer).reason);
  const said = reason ? ` (YouTube says: "${reason.slice(0, 160)}")` : "";
  if (/not a bot/i.test(reason)) {
    return `YouTube asked to confirm this is not a bot${said}: it blocks this network address. Retry later, or set HTTPS_PROXY to a residential proxy; the video itself may be fine`;
  }
  if (/confirm your age|age.restrict|inappropriate for some users/i.test(reason)) {
    return `Video ${id} is age-restricted${said}; its metadata and captions need a signed-in account, which this server does not use`;
  }
  if (/private/i.test(reason)) {
    return `Video ${id} is private${said}; only its owner's invitees can see it. Check the id or ask for a public copy`;
  }
  if (/members/i.test(reason)) {
    return `Video ${id} is for channel members only${said}; it cannot be read without a member account`;
  }
  if (kind === "ERROR" || /unavailable|removed|terminated|does not exist/i.test(reason)) {
    return `Video ${id} is unavailable${said}: removed, never existed, or blocked in this region. Check the id (11 characters, case-sensitive) or search for another upload with action=search`;
  }
  if (kind === "LIVE_STREAM_OFFLINE") {
    return `Video ${id} is a live stream that has not started${said}; try again once it is live or over`;
  }
  return `YouTube will not play video ${id} here (status ${
    kind.slice(0, 40)
  })${said}; try again later or from another network (HTTPS_PROXY)`;
}

const TIMESTAMP_LINE =
  /^\s*(?:[-*•▶]\s*)?\(?((?:\d{1,2}:)?\d{1,2}:\d{2})\)?\s*[-–—:|]?\s*(.+?)\s*$/;

function clockSeconds(text: string): number {
  return text.split(":").reduce((sum, part) => sum * 60 + Number(part), 0);
}

/**
 * Chapters from a description: YouTube makes chapters of a list of
 * timestamps that starts at 0:00, has at least three entries, in order.
 */
export function descriptionChapters(description: string): Chapter[] {
  const out: Chapter[] = [];
  for (const line of description.split("\n")) {
    const m = TIMESTAMP_LINE.exec(line);
    if (!m) continue;
    const start = clockSeconds(m[1]);
    if (out.length === 0 && start !== 0) continue;
    if (out.length > 0 && start <= out[out.length - 1].start) continue;
    out.push({ start, title: m[2].replace(/\s+/g, " ") });
  }
  return out.length >= 3 ? out : [];
}

/** Reads a player response (exported for tests). */
export function readPlayer(body: unknown, id: string): VideoInfo {
  const root = obj(body);
  const problem = playabilityError(obj(root.playabilityStatus), id);
  if (problem) throw new SourceError(problem);
  const details = obj(root.videoDetails);
  if (str(details.videoId) !== id) {
    throw new SourceError(
      `YouTube's answer for video ${id} had no details for it (a changed API or a blocked request); retry later`,
    );
  }
  const micro = obj(obj(root.microformat).playerMicroformatRenderer);
  const tracklist = obj(obj(root.captions).playerCaptionsTracklistRenderer);
  const tracks: CaptionTrack[] = [];
  for (const t of Array.isArray(tracklist.captionTracks) ? tracklist.captionTracks : []) {
    const track = obj(t);
    const baseUrl = str(track.baseUrl);
    const languageCode = str(track.languageCode);
    if (!baseUrl || !/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(languageCode)) continue;
    tracks.push({
      languageCode,
      name: runsText(track.name),
      auto: str(track.kind) === "asr",
      baseUrl: baseUrl.startsWith("/") ? `https://www.youtube.com${baseUrl}` : baseUrl,
    });
  }
  const description = str(details.shortDescription) || runsText(micro.description);
  const date = str(micro.publishDate).slice(0, 10);
  return {
    id,
    title: str(details.title),
    author: str(details.author),
    channelId: /^UC[A-Za-z0-9_-]{22}$/.test(str(details.channelId))
      ? str(details.channelId)
      : undefined,
    lengthSeconds: int(details.lengthSeconds),
    views: int(details.viewCount),
    publishDate: /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined,
    live: details.isLiveContent === true,
    description,
    keywords: Array.isArray(details.keywords) ? details.keywords.map(str).filter(Boolean) : [],
    tracks,
    chapters: descriptionChapters(description),
  };
}

/** Loads a video's player response (the ANDROID client: its caption URLs need no PO token). */
export async function fetchPlayer(id: string, signal?: AbortSignal): Promise<VideoInfo> {
  let body: unknown;
  try {
    body = await innertubeCall("/player", { videoId: id }, "ANDROID", signal);
  } catch (error) {
    if (error instanceof ContentError) {
      throw new ContentError(
        `YouTube's player answer for video ${id} was not JSON (a consent or block page?); retry later or from another network`,
      );
    }
    throw error;
  }
  return readPlayer(body, id);
}

/** One timed caption cue. */
export interface Cue {
  /** Start in seconds. */
  start: number;
  /** Duration in seconds. */
  duration: number;
  /** Text, whitespace collapsed. */
  text: string;
}

/** Reads a timedtext json3 body (exported for tests). */
export function readJson3(body: unknown): Cue[] {
  const events = obj(body).events;
  if (!Array.isArray(events)) {
    throw new ContentError("the caption track was not in the expected json3 form; retry later");
  }
  const cues: Cue[] = [];
  for (const e of events) {
    const event = obj(e);
    if (!Array.isArray(event.segs)) continue;
    const text = event.segs.map((s) => str(obj(s).utf8)).join("").replace(/\s+/g, " ").trim();
    const start = Number(event.tStartMs);
    if (!text || !Number.isFinite(start)) continue;
    const duration = Number(event.dDurationMs);
    cues.push({
      start: start / 1000,
      duration: Number.isFinite(duration) ? duration / 1000 : 0,
      text,
    });
  }
  return cues;
}

/** The json3 URL of a caption track. */
export function json3Url(track: CaptionTrack): string {
  const url = new URL(track.baseUrl);
  url.searchParams.set("fmt", "json3");
  return url.href;
}

/** Loads one caption track's cues. */
export async function fetchCaptions(track: CaptionTrack, signal?: AbortSignal): Promise<Cue[]> {
  const url = json3Url(track);
  if (new URL(url).hostname !== "www.youtube.com") {
    throw new SourceError("the caption track pointed outside www.youtube.com; refused");
  }
  const result = await netRequest(url, { method: "GET" }, signal);
  const text = result.text();
  if (text.trim() === "") {
    throw new SourceError(
      "YouTube returned an empty caption track (it does this to blocked or unverified clients); retry later, or from another network (HTTPS_PROXY)",
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContentError("the caption track was not valid JSON; retry later");
  }
  return readJson3(body);
}

/** Picks a track: the first preferred language, manual before auto. */
export function pickTrack(tracks: CaptionTrack[], languages: string[]): CaptionTrack | undefined {
  for (const lang of languages) {
    const l = lang.toLowerCase();
    const match = (t: CaptionTrack): boolean =>
      t.languageCode.toLowerCase() === l || t.languageCode.toLowerCase().split("-")[0] === l;
    const found = tracks.find((t) => !t.auto && match(t)) ?? tracks.find((t) => t.auto && match(t));
    if (found) return found;
  }
  return undefined;
}

/** One video in a search result or playlist. */
export interface VideoEntry {
  /** Video id. */
  id: string;
  /** Title (upstream text). */
  title: string;
  /** Channel name (upstream text). */
  channel: string;
  /** Length as shown (12:34), when given. */
  length?: string;
  /** View count as shown ("1,234 views"), when given. */
  views?: string;
  /** Relative date as shown ("2 years ago"), when given. */
  published?: string;
  /** What the entry is: a video (the default), a Short, or a playlist (whose id is {@link VideoEntry.id}). */
  kind?: "video" | "short" | "playlist";
  /** Item count as shown ("12 videos"), for a playlist. */
  count?: string;
}

const ENTRY_RENDERERS = ["videoRenderer", "playlistVideoRenderer", "compactVideoRenderer"];
const SHORT_RENDERERS = ["reelItemRenderer", "shortsLockupViewModel"];
const PLAYLIST_RENDERERS = ["gridPlaylistRenderer", "playlistRenderer", "lockupViewModel"];

function viewModelText(value: unknown): string {
  return str(obj(value).content) || runsText(value);
}

/** A Short from a reel item or a Shorts lockup view model. */
function shortEntry(key: string, r: Json): VideoEntry | undefined {
  if (key === "reelItemRenderer") {
    const id = str(r.videoId);
    return VIDEO_ID.test(id)
      ? {
        id,
        title: runsText(r.headline),
        channel: "",
        views: runsText(r.viewCountText) || undefined,
        kind: "short",
      }
      : undefined;
  }
  const id = str(obj(obj(obj(r.onTap).innertubeCommand).reelWatchEndpoint).videoId);
  if (!VIDEO_ID.test(id)) return undefined;
  const overlay = obj(r.overlayMetadata);
  return {
    id,
    title: viewModelText(overlay.primaryText),
    channel: "",
    views: viewModelText(overlay.secondaryText) || undefined,
    kind: "short",
  };
}

/** A playlist from a playlist renderer or a lockup view model of a playlist. */
function playlistEntry(key: string, r: Json): VideoEntry | undefined {
  if (key === "lockupViewModel") {
    if (!/PLAYLIST|PODCAST/.test(str(r.contentType))) return undefined;
    const id = str(r.contentId);
    const meta = obj(obj(r.metadata).lockupMetadataViewModel);
    return PLAYLIST_ID.test(id)
      ? { id, title: viewModelText(meta.title), channel: "", kind: "playlist" }
      : undefined;
  }
  const id = str(r.playlistId);
  if (!PLAYLIST_ID.test(id)) return undefined;
  return {
    id,
    title: runsText(r.title),
    channel: runsText(r.shortBylineText) || runsText(r.longBylineText),
    count: runsText(r.videoCountText) || runsText(r.videoCountShortText) || undefined,
    kind: "playlist",
  };
}

/** Collects video entries from a browse or search response, in order (exported for tests). */
export function readEntries(body: unknown, limit: number): VideoEntry[] {
  const out: VideoEntry[] = [];
  const seen = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (out.length >= limit || depth > 40 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node as Json)) {
      const other = SHORT_RENDERERS.includes(key)
        ? shortEntry(key, obj(value))
        : PLAYLIST_RENDERERS.includes(key)
        ? playlistEntry(key, obj(value))
        : undefined;
      if (other) {
        if (!seen.has(other.id) && out.length < limit) {
          seen.add(other.id);
          out.push(other);
        }
        continue;
      }
      if (ENTRY_RENDERERS.includes(key)) {
        const r = obj(value);
        const id = str(r.videoId);
        if (VIDEO_ID.test(id) && !seen.has(id) && out.length < limit) {
          seen.add(id);
          out.push({
            id,
            title: runsText(r.title),
            channel: runsText(r.ownerText) || runsText(r.shortBylineText) ||
              runsText(r.longBylineText),
            length: runsText(r.lengthText) || undefined,
            views: runsText(r.viewCountText) || undefined,
            published: runsText(r.publishedTimeText) || undefined,
          });
        }
        continue;
      }
      walk(value, depth + 1);
    }
  };
  walk(body, 0);
  return out;
}

/** Continuation tokens: base64url with its padding, sometimes percent-encoded. */
export const CONTINUATION = /^[A-Za-z0-9_%=-]{8,2000}$/;

/**
 * The token of the next page of a list: the last continuation item of the
 * answer (where a list says "more"), or undefined at its end.
 */
export function readContinuation(body: unknown): string | undefined {
  let token: string | undefined;
  const walk = (node: unknown, depth: number): void => {
    if (depth > 40 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === "continuationItemRenderer") {
        const t = str(obj(obj(obj(value).continuationEndpoint).continuationCommand).token);
        if (CONTINUATION.test(t)) token = t;
        continue;
      }
      walk(value, depth + 1);
    }
  };
  walk(body, 0);
  return token;
}

/** One page of a list: its entries and the next page's token. */
export interface ListPage {
  /** Entries, at most the limit. */
  entries: VideoEntry[];
  /** Token of the next page, when there is one. */
  next?: string;
}

/**
 * A further page of a channel tab, a playlist (`/browse`) or a search
 * (`/search`), from the token an earlier page gave.
 */
export async function fetchMore(
  endpoint: "/browse" | "/search",
  token: string,
  limit: number,
  signal?: AbortSignal,
): Promise<ListPage> {
  if (!CONTINUATION.test(token)) {
    throw new ToolError(
      "continuation takes the next_page value of an earlier answer (letters, digits, _ - = %); pass it unchanged",
    );
  }
  const body = await innertubePost(endpoint, { continuation: token }, signal);
  return { entries: readEntries(body, limit), next: readContinuation(body) };
}

/** An Innertube call with the WEB client; the answer as JSON (kept for the comments module). */
export function innertubePost(
  endpoint: string,
  payload: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<unknown> {
  return innertubeCall(endpoint, payload, "WEB", signal);
}

/** Video search: the first page of results, at most `limit`. */
export async function searchVideos(
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<ListPage> {
  // params "EgIQAQ==" restricts results to videos.
  const body = await innertubePost("/search", { query, params: "EgIQAQ==" }, signal);
  return { entries: readEntries(body, limit), next: readContinuation(body) };
}

/** A playlist: title and the first page of items. */
export interface Playlist {
  /** Title (upstream text). */
  title: string;
  /** Owner (upstream text). */
  owner: string;
  /** Description (upstream text). */
  description: string;
  /** Items. */
  items: VideoEntry[];
  /** Token of the next page of items. */
  next?: string;
}

/** Playlist ids: PL…, UU…, OLAK5uy_…, RD… and similar. */
export const PLAYLIST_ID = /^[A-Za-z0-9_-]{2,64}$/;

/** Loads a playlist's first page. */
export async function fetchPlaylist(
  id: string,
  limit: number,
  signal?: AbortSignal,
): Promise<Playlist> {
  const body = obj(await innertubePost("/browse", { browseId: `VL${id}` }, signal));
  const alerts = Array.isArray(body.alerts) ? body.alerts : [];
  const alert = alerts.map((a) => runsText(obj(obj(a).alertRenderer).text)).find(Boolean);
  const meta = obj(obj(body.metadata).playlistMetadataRenderer);
  const header = obj(obj(body.header).playlistHeaderRenderer);
  const items = readEntries(body.contents, limit);
  if (items.length === 0 && !str(meta.title)) {
    throw new SourceError(
      `playlist ${id} could not be read${
        alert ? ` (YouTube says: "${alert.slice(0, 160)}")` : ""
      }: it may be private, deleted or a mix that only exists in the app. Check the list= id of the URL`,
    );
  }
  return {
    title: str(meta.title) || runsText(header.title),
    owner: runsText(header.ownerText),
    description: str(meta.description) || runsText(header.descriptionText),
    items,
    next: readContinuation(body.contents),
  };
}

/** A channel: metadata and its latest uploads (first page). */
export interface Channel {
  /** Channel id (UC…). */
  id: string;
  /** Name (upstream text). */
  title: string;
  /** Description (upstream text). */
  description: string;
  /** Subscriber count as shown ("1.2M subscribers"), when given. */
  subscribers?: string;
  /** The tab's entries (latest uploads on the Videos tab). */
  videos: VideoEntry[];
  /** Which tab they are from. */
  tab: ChannelTab;
  /** Token of the tab's next page. */
  next?: string;
}

/** The channel tabs that list entries. */
export const CHANNEL_TABS = ["videos", "shorts", "streams", "playlists"] as const;
/** One of {@link CHANNEL_TABS}. */
export type ChannelTab = typeof CHANNEL_TABS[number];

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
/** Params selecting each tab of a channel in a browse request (what the web app sends). */
const TAB_PARAMS: Record<ChannelTab, string> = {
  videos: "EgZ2aWRlb3PyBgQKAjoA",
  shorts: "EgZzaG9ydHPyBgUKA5oBAA==",
  streams: "EgdzdHJlYW1z8gYECgJ6AA==",
  playlists: "EglwbGF5bGlzdHPyBgQKAkIA",
};

/** Loads a channel (a path from {@link parseYoutubeUrl}) and one tab's first page (its latest uploads by default). */
export async function fetchChannel(
  ref: string,
  limit: number,
  signal?: AbortSignal,
  tab: ChannelTab = "videos",
): Promise<Channel> {
  let id = ref.startsWith("channel/") ? ref.slice("channel/".length) : "";
  if (!id) {
    const url = `https://www.youtube.com/${ref}`;
    const resolved = obj(await innertubePost("/navigation/resolve_url", { url }, signal));
    id = str(obj(obj(resolved.endpoint).browseEndpoint).browseId);
    if (!CHANNEL_ID.test(id)) {
      throw new SourceError(
        `YouTube does not know the channel ${
          ref.slice(0, 80)
        }; check the handle, or pass https://www.youtube.com/channel/UC… from the channel's page`,
      );
    }
  }
  if (!CHANNEL_ID.test(id)) {
    throw new ToolError(
      "a channel id is UC followed by 22 characters (A-Z a-z 0-9 _ -); check the URL",
    );
  }
  const body = obj(
    await innertubePost("/browse", { browseId: id, params: TAB_PARAMS[tab] }, signal),
  );
  const meta = obj(obj(body.metadata).channelMetadataRenderer);
  if (!str(meta.title)) {
    const alert = (Array.isArray(body.alerts) ? body.alerts : [])
      .map((a) => runsText(obj(obj(a).alertRenderer).text)).find(Boolean);
    throw new SourceError(
      `channel ${id} could not be read${
        alert ? ` (YouTube says: "${alert.slice(0, 160)}")` : ""
      }: it may be terminated or hidden; check the URL`,
    );
  }
  const header = obj(obj(body.header).c4TabbedHeaderRenderer);
  return {
    id,
    title: str(meta.title),
    description: str(meta.description),
    subscribers: runsText(header.subscriberCountText) || undefined,
    videos: readEntries(body.contents, limit),
    tab,
    next: readContinuation(body.contents),
  };
}
