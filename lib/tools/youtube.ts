/**
 * `youtube` (`Youtube`): videos and their transcripts through YouTube's
 * Innertube API.
 *
 * - `video`: title, channel, duration, views, date, caption languages,
 *   chapters; the description inside the fence;
 * - `transcript`: one caption track (language preference, manual before
 *   auto-generated) cut into windows of about 30 s at sentence ends or
 *   pauses; timestamp modes compact, absolute, none and structured; BM25
 *   search over windows, time ranges, chapter scoping and windows by index;
 * - `channel`, `playlist` and `search`: first-page entries as records in the
 *   configured output format.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { SearchIndex } from "../content/search/bm25.ts";
import { renderRecords } from "../envelope/formats.ts";
import { OUTPUT_FORMATS } from "../config.ts";
import { fetchCommentCount } from "../sources/youtube/comments.ts";
import {
  ACCEPTED_FORMS,
  CHANNEL_TABS,
  type Chapter,
  CONTINUATION,
  fetchCaptions,
  fetchChannel,
  fetchMore,
  fetchPlayer,
  fetchPlaylist,
  type ListPage,
  parseYoutubeUrl,
  pickTrack,
  PLAYLIST_ID,
  searchVideos,
  type VideoEntry,
  videoId,
  type VideoInfo,
  watchUrl,
} from "../sources/youtube/mod.ts";
import {
  buildWindows,
  clock,
  isPunctuated,
  renderWindows,
  TIMESTAMP_MODES,
  type Window,
} from "../sources/youtube/transcript.ts";
import { READS_THE_WEB } from "./page_view.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = ["video", "transcript", "channel", "playlist", "search"] as const;
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const LANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
const CHANNEL = /^UC[A-Za-z0-9_-]{22}$/;

const schema = z.object({
  action: z.enum(ACTIONS),
  url: z.string().max(500).optional().describe(
    "a video URL or id, youtube.com/@handle, or a playlist",
  ),
  query: z.string().max(300).optional().describe("search: words"),
  tab: z.enum(CHANNEL_TABS).optional().describe(
    "channel: videos (default), shorts, streams, playlists",
  ),
  continuation: z.string().max(2000).optional().describe(
    "channel, playlist, search: next_page of an earlier answer",
  ),
  limit: z.number().int().optional().describe("channel, playlist, search: entries (default 30)"),
  languages: z.array(z.string().max(20)).max(10).optional().describe(
    'transcript: ISO codes by preference (default ["en"])',
  ),
  timestamps: z.enum(TIMESTAMP_MODES).optional().describe(
    "transcript: compact (default), absolute, none, structured",
  ),
  search: z.string().max(500).optional().describe("transcript: keyword search"),
  windows: z.array(z.number().int().min(0).max(100_000)).max(100).optional().describe(
    "transcript: window indexes",
  ),
  start_seconds: z.number().min(0).optional().describe("transcript: from this second"),
  end_seconds: z.number().min(0).optional().describe("transcript: up to this second"),
  chapter: z.string().max(200).optional().describe("transcript: chapters matching this"),
  order: z.enum(["score", "time"]).optional().describe("search: score (default) or time"),
});

type Args = z.infer<typeof schema>;

function idOf(url: string | undefined, action: string): string {
  if (url === undefined || url.trim() === "") {
    throw new ToolError(`'url' is required for action='${action}'; ${ACCEPTED_FORMS}`);
  }
  return videoId(url);
}

function baseFrontmatter(info: VideoInfo, action: string): Frontmatter {
  return new Frontmatter()
    .set("source", trusted.url(watchUrl(info.id)))
    .set("api", trusted.text`YouTube Innertube`)
    .set("action", trusted.oneOf(ACTIONS, action))
    .set("video_id", trusted.matching(info.id, VIDEO_ID));
}

function languageList(codes: string[]): Trusted[] {
  return [...new Set(codes)].filter((c) => LANG.test(c)).map((c) => trusted.matching(c, LANG));
}

function chapterList(chapters: Chapter[]): string {
  return chapters.map((c) => `- [${clock(c.start)}] ${c.title}`).join("\n");
}

async function videoAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const id = idOf(args.url, "video");
  const [info, comments] = await Promise.all([
    fetchPlayer(id, ctx.signal),
    fetchCommentCount(id, ctx.signal),
  ]);
  const fm = baseFrontmatter(info, "video");
  if (info.channelId) {
    fm.set("channel_id", trusted.matching(info.channelId, CHANNEL));
    fm.set("channel_url", trusted.url(`https://www.youtube.com/channel/${info.channelId}`));
  }
  if (info.lengthSeconds !== undefined) {
    fm.set("duration", trusted.matching(clock(info.lengthSeconds), /^[\d:]+$/));
  }
  if (info.publishDate) fm.set("upload_date", trusted.isoDate(info.publishDate));
  if (info.views !== undefined) fm.set("view_count", info.views);
  if (info.live) fm.set("live_content", true);
  const manual = languageList(info.tracks.filter((t) => !t.auto).map((t) => t.languageCode));
  const auto = languageList(info.tracks.filter((t) => t.auto).map((t) => t.languageCode));
  if (manual.length) fm.set("captions_uploaded", manual);
  if (auto.length) fm.set("captions_auto", auto);
  if (info.chapters.length) fm.set("chapter_count", info.chapters.length);
  if (comments !== undefined) {
    fm.set("comment_count", trusted.matching(comments, /^\d[\d.,]*\s?[KMB]?$/));
    const tool = ctx.toolName("youtube_comments");
    if (tool) {
      fm.append(
        "see_also",
        trusted.text`${trusted.echo(tool)} with url=${
          trusted.url(watchUrl(info.id))
        } for the comments`,
      );
    }
  }
  if (info.tracks.length) {
    const first = info.tracks.find((t) => !t.auto) ?? info.tracks[0];
    fm.append(
      "hint",
      trusted.text`action=transcript with languages=["${
        trusted.matching(first.languageCode, LANG)
      }"] for the caption text; use ISO codes (en, ja), not language names`,
    );
  } else {
    fm.append(
      "note",
      trusted
        .text`this video has no captions (neither uploaded nor auto-generated), so action=transcript has nothing to read`,
    );
  }
  const lines = [`**Channel**: ${info.author}`];
  if (info.keywords.length) lines.push(`**Keywords**: ${info.keywords.slice(0, 20).join(", ")}`);
  lines.push("", "## Description", "", info.description || "(no description)");
  if (info.chapters.length) lines.push("", "## Chapters", "", chapterList(info.chapters));
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: lines.join("\n"), title: info.title || `YouTube video ${id}` }],
  });
}

function validateTranscriptArgs(args: Args): void {
  if (args.search !== undefined && args.windows !== undefined) {
    throw new ToolError("'search' and 'windows' are mutually exclusive; pass one of them");
  }
  const filtered = args.start_seconds !== undefined || args.end_seconds !== undefined ||
    args.chapter !== undefined;
  if (args.windows !== undefined && filtered) {
    throw new ToolError(
      "'windows' cannot be combined with time-range or chapter filters; drop one or the other",
    );
  }
  if (
    args.start_seconds !== undefined && args.end_seconds !== undefined &&
    args.start_seconds > args.end_seconds
  ) {
    throw new ToolError("start_seconds must be <= end_seconds");
  }
  for (const lang of args.languages ?? []) {
    if (!LANG.test(lang)) {
      throw new ToolError(
        `languages takes ISO codes like "en", "de" or "pt-BR", not '${lang.slice(0, 20)}'`,
      );
    }
  }
}

function windowText(w: Window): string {
  return w.cues.map((c) => c.text).join(" ");
}

async function transcriptAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  validateTranscriptArgs(args);
  const id = idOf(args.url, "transcript");
  const languages = args.languages?.length ? args.languages : ["en"];
  const info = await fetchPlayer(id, ctx.signal);
  const fm = baseFrontmatter(info, "transcript");
  fm.set("requested_languages", languages.map((l) => trusted.matching(l, LANG)));
  if (info.tracks.length === 0) {
    throw new ToolError(
      `video ${id} has no captions (neither uploaded nor auto-generated), so there is no transcript to read; action=video still gives its description`,
    );
  }
  const track = pickTrack(info.tracks, languages);
  if (!track) {
    const available = [...new Set(info.tracks.map((t) => t.languageCode))].join(", ");
    throw new ToolError(
      `no captions in ${
        languages.join(", ")
      } for video ${id}; available: ${available}. Call again with languages=["<one of these>"]`,
    );
  }
  const cues = await fetchCaptions(track, ctx.signal);
  if (cues.length === 0) {
    throw new ToolError(
      `the ${track.languageCode} caption track of video ${id} is empty; try another language from action=video`,
    );
  }
  const chunking = isPunctuated(cues, track.auto) ? "sentence" : "time_window";
  const windows = buildWindows(cues, chunking, info.chapters);
  const last = windows[windows.length - 1];
  fm.set("transcript_language", trusted.matching(track.languageCode, LANG))
    .set("transcript_kind", trusted.oneOf(["auto", "manual"], track.auto ? "auto" : "manual"))
    .set("chunking_strategy", trusted.oneOf(["sentence", "time_window"], chunking))
    .set("total_windows", windows.length)
    .set("total_segments", cues.length)
    .set("duration", trusted.matching(clock(last.end), /^[\d:]+$/));
  if (info.chapters.length) fm.set("chapter_count", info.chapters.length);
  const mode = args.timestamps ?? "compact";
  if (mode !== "compact") fm.set("timestamps", trusted.oneOf(TIMESTAMP_MODES, mode));
  const title = `Transcript (${track.languageCode}${track.auto ? ", auto-generated" : ""})`;

  if (args.windows !== undefined) {
    const wanted = [...new Set(args.windows)];
    const found = wanted.filter((i) => i < windows.length).sort((a, b) => a - b);
    const unknown = wanted.filter((i) => i >= windows.length);
    fm.set("requested_windows", wanted.length).set("matched_windows", found.length);
    if (unknown.length) fm.set("unknown_windows", unknown);
    if (found.length === 0) {
      fm.append(
        "note",
        trusted.text`no such windows; this transcript has windows 0 to ${windows.length - 1}`,
      );
      return ctx.respond({ frontmatter: fm });
    }
    return ctx.respond({
      frontmatter: fm,
      fences: [{ content: renderWindows(found.map((i) => windows[i]), mode, false), title }],
    });
  }

  const ranged = args.start_seconds !== undefined || args.end_seconds !== undefined;
  const filtering = ranged || args.chapter !== undefined || args.search !== undefined;
  if (!filtering) {
    const parts: string[] = [];
    if (info.chapters.length && mode === "compact") {
      parts.push("## Chapters", "", chapterList(info.chapters), "");
    }
    parts.push(renderWindows(windows, mode, info.chapters.length > 0));
    return ctx.respond({ frontmatter: fm, fences: [{ content: parts.join("\n"), title }] });
  }

  let pool = windows;
  if (ranged) {
    const from = args.start_seconds ?? 0;
    const to = args.end_seconds ?? Infinity;
    pool = pool.filter((w) => w.end > from && w.start < to);
    if (args.start_seconds !== undefined) fm.set("start_seconds", args.start_seconds);
    if (args.end_seconds !== undefined) fm.set("end_seconds", args.end_seconds);
    if (pool.length === 0) {
      fm.set("matched_windows", 0);
      fm.append(
        "note",
        trusted.text`no windows match the time range; the transcript spans 0 to ${
          Math.ceil(last.end)
        } seconds`,
      );
      return ctx.respond({ frontmatter: fm });
    }
  }
  if (args.chapter !== undefined) {
    fm.set("chapter", trusted.echo(args.chapter, 200));
    if (info.chapters.length === 0) {
      throw new ToolError(
        `video ${id} has no chapters (its description lists no timestamps from 0:00); use start_seconds/end_seconds or search instead`,
      );
    }
    const index = new SearchIndex(info.chapters.map((c) => c.title), info.chapters.map(() => ""));
    const titles = new Set(
      index.search(args.chapter).hits.map((h) => info.chapters[h.index].title),
    );
    pool = pool.filter((w) => w.chapter !== undefined && titles.has(w.chapter));
    if (pool.length === 0) {
      fm.set("matched_windows", 0);
      fm.append(
        "note",
        trusted.text`no windows match the chapter filter; the chapters are listed by action=video`,
      );
      return ctx.respond({ frontmatter: fm });
    }
  }
  let selected = pool;
  if (args.search !== undefined) {
    fm.set("search", trusted.echo(args.search, 200));
    const index = new SearchIndex(pool.map(windowText), pool.map((w) => w.chapter ?? ""));
    const outcome = index.search(args.search);
    for (const warning of outcome.warnings) fm.append("warning", trusted.echo(warning, 300));
    selected = outcome.hits.map((h) => pool[h.index]);
    if (args.order === "time") {
      selected = [...selected].sort((a, b) => a.start - b.start);
      fm.set("order", trusted.oneOf(["score", "time"], "time"));
    }
  }
  fm.set("matched_windows", selected.length);
  if (selected.length === 0) {
    fm.append(
      "note",
      trusted.text`no windows match; try other words, fewer filters, or read the whole transcript`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  if (args.search !== undefined) {
    fm.append(
      "hint",
      trusted.text`windows=[i-1,i,i+1] (the window numbers shown) for context around a match`,
    );
  }
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: renderWindows(selected, mode, false), title }],
  });
}

function clampLimit(limit: number | undefined): number {
  return Math.min(200, Math.max(1, limit ?? 30));
}

function entryUrl(e: VideoEntry): string {
  if (e.kind === "playlist") return `https://www.youtube.com/playlist?list=${e.id}`;
  if (e.kind === "short") return `https://www.youtube.com/shorts/${e.id}`;
  return watchUrl(e.id);
}

function entryRecords(entries: VideoEntry[], offset = 0): Record<string, unknown>[] {
  return entries.map((e, i) => ({
    n: offset + i + 1,
    title: e.title,
    channel: e.channel || null,
    length: e.length ?? e.count ?? null,
    views: e.views ?? null,
    published: e.published ?? null,
    url: entryUrl(e),
  }));
}

const ENTRY_COLUMNS = ["n", "title", "channel", "length", "views", "published", "url"];

/** Says where the next page is, when there is one. */
function nextPage(fm: Frontmatter, next: string | undefined): void {
  if (next === undefined) return;
  fm.set("next_page", trusted.matching(next, CONTINUATION));
  fm.append(
    "hint",
    trusted.text`the same call with continuation=<next_page> for the following entries`,
  );
}

/** A further page of a list (continuation=), with the same records. */
async function morePage(
  args: Args,
  ctx: ToolContext,
  endpoint: "/browse" | "/search",
  what: string,
): Promise<ToolResult> {
  const limit = clampLimit(args.limit);
  const page: ListPage = await fetchMore(endpoint, args.continuation!, limit, ctx.signal);
  const fm = new Frontmatter()
    .set("api", trusted.text`YouTube Innertube`)
    .set("action", trusted.oneOf(ACTIONS, args.action))
    .set("returned_entries", page.entries.length);
  if (page.entries.length === 0) {
    fm.append("note", trusted.text`no further entries: this was the last page`);
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  nextPage(fm, page.next);
  const rendered = renderRecords(entryRecords(page.entries), format, {
    columns: ENTRY_COLUMNS,
    name: "entries",
  });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: `${what} (continued)` }],
    structured: rendered.structured,
  });
}

function playlistId(input: string | undefined): string {
  if (input === undefined || input.trim() === "") {
    throw new ToolError(
      "'url' is required for action='playlist': https://www.youtube.com/playlist?list=<id> or the id (PL…)",
    );
  }
  const raw = input.trim();
  if (/^(?:PL|UU|OL|FL|LL|RD)[A-Za-z0-9_-]{8,62}$/.test(raw)) return raw;
  let list: string | null = null;
  try {
    const url = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `https://${raw}`);
    if (/(?:^|\.)youtube\.com$/.test(url.hostname)) list = url.searchParams.get("list");
  } catch {
    // falls through to the error below
  }
  if (list && PLAYLIST_ID.test(list)) return list;
  throw new ToolError(
    `not a playlist: '${
      raw.slice(0, 100)
    }'; pass https://www.youtube.com/playlist?list=<id>, a watch URL with &list=<id>, or the id (PL…)`,
  );
}

async function playlistAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  if (args.continuation !== undefined) {
    return await morePage(args, ctx, "/browse", "Playlist items");
  }
  const id = playlistId(args.url);
  const limit = clampLimit(args.limit);
  const playlist = await fetchPlaylist(id, limit, ctx.signal);
  const fm = new Frontmatter()
    .set("source", trusted.url(`https://www.youtube.com/playlist?list=${id}`))
    .set("api", trusted.text`YouTube Innertube`)
    .set("action", trusted.oneOf(ACTIONS, "playlist"))
    .set("playlist_id", trusted.matching(id, PLAYLIST_ID))
    .set("returned_items", playlist.items.length);
  const head = [`**Owner**: ${playlist.owner || "(not given)"}`];
  if (playlist.description) head.push("", playlist.description);
  if (playlist.items.length === 0) {
    fm.append("note", trusted.text`the playlist has no playable items`);
    return ctx.respond({
      frontmatter: fm,
      fences: [{ content: head.join("\n"), title: playlist.title || `Playlist ${id}` }],
    });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  nextPage(fm, playlist.next);
  fm.append("hint", trusted.text`action=video or action=transcript with an item's url`);
  const rendered = renderRecords(entryRecords(playlist.items), format, {
    columns: ENTRY_COLUMNS,
    name: "items",
  });
  return ctx.respond({
    frontmatter: fm,
    fences: [
      { content: head.join("\n"), title: playlist.title || `Playlist ${id}` },
      { content: rendered.text, title: "Items" },
    ],
    structured: rendered.structured,
  });
}

async function channelAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  if (args.continuation !== undefined) {
    return await morePage(args, ctx, "/browse", "Channel entries");
  }
  const url = args.url?.trim();
  if (!url) {
    throw new ToolError(
      "'url' is required for action='channel': https://www.youtube.com/@handle or /channel/UC…",
    );
  }
  const target = parseYoutubeUrl(url);
  if (target.kind !== "channel") {
    throw new ToolError(
      `URL is a ${target.kind}, not a channel; pass https://www.youtube.com/@handle, /channel/UC…, /c/<name> or /user/<name>`,
    );
  }
  const limit = clampLimit(args.limit);
  const ref = target.ref;
  const tab = args.tab ?? "videos";
  const channel = await fetchChannel(ref, limit, ctx.signal, tab);
  const fm = new Frontmatter()
    .set("source", trusted.url(`https://www.youtube.com/channel/${channel.id}`))
    .set("api", trusted.text`YouTube Innertube`)
    .set("action", trusted.oneOf(ACTIONS, "channel"))
    .set("channel_id", trusted.matching(channel.id, CHANNEL))
    .set("tab", trusted.oneOf(CHANNEL_TABS, tab))
    .set("returned_videos", channel.videos.length);
  const head = [`**Channel**: ${channel.title}`];
  if (channel.subscribers) head.push(`**Subscribers**: ${channel.subscribers}`);
  if (channel.description) head.push("", channel.description);
  const fences = [{ content: head.join("\n"), title: channel.title || channel.id }];
  if (channel.videos.length === 0) {
    fm.append(
      "note",
      trusted
        .text`nothing on the channel's ${
        trusted.oneOf(CHANNEL_TABS, tab)
      } tab; try tab=videos, shorts, streams or playlists`,
    );
    return ctx.respond({ frontmatter: fm, fences });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  fm.append(
    "hint",
    tab === "playlists"
      ? trusted.text`action=playlist with a playlist's url`
      : trusted.text`action=video or action=transcript with an upload's url`,
  );
  nextPage(fm, channel.next);
  const rendered = renderRecords(entryRecords(channel.videos), format, {
    columns: ENTRY_COLUMNS,
    name: "videos",
  });
  const titles = {
    videos: "Recent uploads",
    shorts: "Shorts",
    streams: "Live streams",
    playlists: "Playlists",
  };
  return ctx.respond({
    frontmatter: fm,
    fences: [...fences, { content: rendered.text, title: titles[tab] }],
    structured: rendered.structured,
  });
}

async function searchAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  if (args.continuation !== undefined) {
    return await morePage(args, ctx, "/search", "Search results");
  }
  const query = (args.query ?? "").replace(/\s+/g, " ").trim();
  if (query === "") {
    throw new ToolError("'query' is required for action='search' (words to search videos for)");
  }
  const limit = clampLimit(args.limit);
  const page = await searchVideos(query, limit, ctx.signal);
  const entries = page.entries;
  const fm = new Frontmatter()
    .set("api", trusted.text`YouTube Innertube`)
    .set("action", trusted.oneOf(ACTIONS, "search"))
    .set("search", trusted.echo(query, 200))
    .set("returned_results", entries.length);
  if (entries.length === 0) {
    fm.append("note", trusted.text`no videos found; try other or fewer words`);
    return ctx.respond({ frontmatter: fm });
  }
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  fm.append("hint", trusted.text`action=video or action=transcript with a result's url`);
  nextPage(fm, page.next);
  const rendered = renderRecords(entryRecords(entries), format, {
    columns: ENTRY_COLUMNS,
    name: "results",
  });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text, title: `Search: ${query}` }],
    structured: rendered.structured,
  });
}

const DESCRIPTION = `YouTube through its own API.

- video (url or id): channel, duration, views, date, captions, chapters,
  comment count;
- transcript: captions in ~30 s windows, narrowed by search=,
  start_seconds / end_seconds, chapter= or windows=;
- channel (youtube.com/@handle): a tab's entries (tab=); playlist: items;
  search: videos matching query; lists give next_page for continuation=.
Comments: {tool:youtube_comments}.`;

/** The tool declaration. */
export const youtube = defineTool({
  key: "youtube",
  names: { desktop: "youtube", code: "Youtube" },
  title: "YouTube",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: byAction<Args>({
    video: videoAction,
    transcript: transcriptAction,
    channel: channelAction,
    playlist: playlistAction,
    search: searchAction,
  }),
});
