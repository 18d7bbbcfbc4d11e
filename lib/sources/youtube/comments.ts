/**
 * YouTube comments through Innertube `/next`: the watch answer holds a
 * continuation token for the comment section; following it gives the
 * top-level threads (sorted by top, YouTube's default), and each thread's
 * replies token gives its replies. Comment text and authors live in
 * `frameworkUpdates.entityBatchUpdate.mutations[].payload.commentEntityPayload`,
 * keyed by comment id; the older `commentRenderer` form is read too.
 *
 * Each request repeats its key field (`videoId`, `continuation`) as a query
 * parameter, as in {@link ./youtube.ts}.
 *
 * @module
 */
import { innertubePost } from "./mod.ts";
import { SourceError } from "../../errors.ts";

/** One comment. */
export interface Comment {
  /** Comment id (Ugx…; replies have a dot and a suffix). */
  id: string;
  /** Author display name (upstream text). */
  author: string;
  /** Text (upstream text). */
  text: string;
  /** Likes as shown ("1.2K"), when given. */
  likes?: string;
  /** Relative date as shown ("2 years ago"). */
  published?: string;
  /** Reply count as shown. */
  replies?: string;
  /** Pinned by the uploader. */
  pinned: boolean;
  /** Written by the uploader. */
  uploader: boolean;
  /** Token for the replies, when there are any. */
  repliesToken?: string;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Json : {};
}

function str(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

function runsText(value: unknown): string {
  const v = obj(value);
  if (typeof v.simpleText === "string") return v.simpleText;
  return Array.isArray(v.runs) ? v.runs.map((r) => str(obj(r).text)).join("") : "";
}

const COMMENT_ID = /^[A-Za-z0-9_.-]{10,80}$/;

/** The first continuation token inside `node`. */
function firstToken(node: unknown, depth = 0): string | undefined {
  if (node === null || typeof node !== "object" || depth > 30) return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const t = firstToken(item, depth + 1);
      if (t) return t;
    }
    return undefined;
  }
  const token = str(obj(obj(node).continuationCommand).token);
  if (token) return token;
  for (const value of Object.values(node)) {
    const t = firstToken(value, depth + 1);
    if (t) return t;
  }
  return undefined;
}

/** Finds nodes with a given key, in document order. */
function findAll(node: unknown, key: string, out: Json[] = [], depth = 0): Json[] {
  if (node === null || typeof node !== "object" || depth > 40) return out;
  if (Array.isArray(node)) {
    for (const item of node) findAll(item, key, out, depth + 1);
    return out;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === key) out.push(obj(v));
    else findAll(v, key, out, depth + 1);
  }
  return out;
}

/** The comment section's token in a watch (`/next`) answer (exported for tests). */
export function commentsToken(body: unknown): string | undefined {
  for (const section of findAll(body, "itemSectionRenderer")) {
    if (str(section.sectionIdentifier) === "comment-item-section") return firstToken(section);
  }
  for (const panel of findAll(body, "engagementPanelSectionListRenderer")) {
    if (str(panel.panelIdentifier) === "engagement-panel-comments-section") {
      return firstToken(panel.content);
    }
  }
  return undefined;
}

function entities(body: unknown): Map<string, Json> {
  const map = new Map<string, Json>();
  for (const payload of findAll(obj(body).frameworkUpdates, "commentEntityPayload")) {
    const id = str(obj(payload.properties).commentId);
    if (id) map.set(id, payload);
  }
  return map;
}

function fromEntity(id: string, view: Json, payload: Json | undefined): Comment | undefined {
  if (!payload) return undefined;
  const props = obj(payload.properties);
  const author = obj(payload.author);
  const toolbar = obj(payload.toolbar);
  return {
    id,
    author: str(author.displayName),
    text: str(obj(props.content).content),
    likes: str(toolbar.likeCountNotliked) || undefined,
    published: str(props.publishedTime) || undefined,
    replies: str(toolbar.replyCount) || undefined,
    pinned: view.pinnedText !== undefined,
    uploader: author.isCreator === true,
  };
}

function fromRenderer(r: Json): Comment | undefined {
  const id = str(r.commentId);
  if (!COMMENT_ID.test(id)) return undefined;
  return {
    id,
    author: runsText(r.authorText),
    text: runsText(r.contentText),
    likes: runsText(r.voteCount) || undefined,
    published: runsText(r.publishedTimeText) || undefined,
    replies: str(r.replyCount) || undefined,
    pinned: r.pinnedCommentBadge !== undefined,
    uploader: r.authorIsChannelOwner === true,
  };
}

/** Reads top-level threads from a comment continuation answer (exported for tests). */
export function readThreads(body: unknown): Comment[] {
  const byId = entities(body);
  const out: Comment[] = [];
  for (const thread of findAll(body, "commentThreadRenderer")) {
    const view = obj(obj(thread.commentViewModel).commentViewModel);
    const id = str(view.commentId);
    const comment = COMMENT_ID.test(id)
      ? fromEntity(id, view, byId.get(id))
      : fromRenderer(obj(obj(thread.comment).commentRenderer));
    if (!comment) continue;
    comment.repliesToken = firstToken(thread.replies);
    out.push(comment);
  }
  return out;
}

/** Reads replies from a replies continuation answer (exported for tests). */
export function readReplies(body: unknown): Comment[] {
  const byId = entities(body);
  const out: Comment[] = [];
  for (const outer of findAll(body, "commentViewModel")) {
    const view = typeof outer.commentId === "string" ? outer : obj(outer.commentViewModel);
    const id = str(view.commentId);
    const c = COMMENT_ID.test(id) ? fromEntity(id, view, byId.get(id)) : undefined;
    if (c) out.push(c);
  }
  for (const r of findAll(body, "commentRenderer")) {
    const c = fromRenderer(r);
    if (c && !out.some((o) => o.id === c.id)) out.push(c);
  }
  return out;
}

/** The video's title and its top-level comments (first page). */
export async function fetchComments(
  id: string,
  signal?: AbortSignal,
): Promise<{ title: string; threads: Comment[] }> {
  const watch = await innertubePost("/next", { videoId: id }, signal);
  const title = findAll(watch, "videoPrimaryInfoRenderer").map((r) => runsText(r.title))
    .find(Boolean) ?? "";
  const token = commentsToken(watch);
  if (!token) {
    throw new SourceError(
      `video ${id} shows no comment section: comments are turned off, the video is unavailable, or YouTube withheld it from this client; check the video with youtube action=video`,
    );
  }
  const page = await innertubePost("/next", { continuation: token }, signal);
  return { title, threads: readThreads(page) };
}

/** The replies of one thread. */
export async function fetchReplies(token: string, signal?: AbortSignal): Promise<Comment[]> {
  const page = await innertubePost("/next", { continuation: token }, signal);
  return readReplies(page);
}

/** Comment counts as YouTube shows them: "1,234", "1.2K", "3M". */
const COUNT = /^\d[\d.,]*\s?[KMB]?$/;

/**
 * The comment count a watch answer shows (the comments panel's header, or
 * the entry point under the video), when it shows one.
 */
export function readCommentCount(watch: unknown): string | undefined {
  for (const panel of findAll(watch, "engagementPanelSectionListRenderer")) {
    if (!/comments/.test(String(panel.panelIdentifier ?? ""))) continue;
    for (const header of findAll(panel, "engagementPanelTitleHeaderRenderer")) {
      const text = runsText(header.contextualInfo).trim();
      if (COUNT.test(text)) return text;
    }
  }
  for (const entry of findAll(watch, "commentsEntryPointHeaderRenderer")) {
    const text = runsText(entry.commentCount).trim();
    if (COUNT.test(text)) return text;
  }
  return undefined;
}

/** The comment count of a video (undefined when YouTube shows none or the call fails). */
export async function fetchCommentCount(
  id: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    return readCommentCount(await innertubePost("/next", { videoId: id }, signal));
  } catch (error) {
    if (signal?.aborted) throw error;
    return undefined;
  }
}
