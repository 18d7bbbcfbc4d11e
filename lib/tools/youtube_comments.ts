/**
 * `youtube_comments` (`YoutubeComments`): a video's top comments, or the
 * replies of one top-level comment, through Innertube `/next`.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { trusted } from "../trust.ts";
import { videoId, watchUrl } from "../sources/youtube/mod.ts";
import { type Comment, fetchComments, fetchReplies } from "../sources/youtube/comments.ts";
import { READS_THE_WEB } from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const COMMENT_ID = /^[A-Za-z0-9_-]{10,80}$/;

const schema = z.object({
  url: z.string().max(500).describe("the video's URL or 11-character id"),
  comment_id: z.string().max(100).optional().describe(
    "a comment's id (from the overview) to read its replies",
  ),
  limit: z.number().int().optional().describe("top-level comments (default 30, up to 50)"),
});

type Args = z.infer<typeof schema>;

function line(c: Comment): string {
  const tags = [
    `**${c.author || "(unknown)"}**`,
    ...(c.pinned ? ["pinned"] : []),
    ...(c.uploader ? ["uploader"] : []),
    ...(c.likes && c.likes !== "0" ? [`${c.likes} likes`] : []),
    ...(c.published ? [c.published] : []),
    `id=${c.id}`,
  ];
  return `${tags.join(", ")}: ${c.text.replace(/\s+/g, " ").trim()}`;
}

async function handle(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const id = videoId(args.url);
  const commentId = args.comment_id?.trim();
  if (commentId !== undefined && !COMMENT_ID.test(commentId)) {
    throw new ToolError(
      "comment_id must be the id of a top-level comment as the overview shows it (id=Ugx…); reply ids (with a dot) have no replies of their own",
    );
  }
  const { title, threads } = await fetchComments(id, ctx.signal);
  const fm = new Frontmatter()
    .set("source", trusted.url(watchUrl(id)))
    .set("api", trusted.text`YouTube Innertube`)
    .set("video_id", trusted.matching(id, VIDEO_ID));
  const fenceTitle = `${title || `Video ${id}`} — comments`;
  if (commentId === undefined) {
    const limit = Math.min(50, Math.max(1, args.limit ?? 30));
    const shown = threads.slice(0, limit);
    fm.set("view", trusted.text`overview`).set("top_level_comments", shown.length);
    if (shown.length === 0) {
      fm.append("note", trusted.text`the comment section is empty`);
      return ctx.respond({ frontmatter: fm });
    }
    fm.append("hint", trusted.text`pass comment_id=<id> to read the replies of one comment`);
    const body = [
      `## Comments (${shown.length} top-level, sorted by top)`,
      "",
      ...shown.map((c, i) =>
        `${i + 1}. ${line(c)}${c.replies && c.replies !== "0" ? ` (${c.replies} replies)` : ""}`
      ),
    ];
    return ctx.respond({
      frontmatter: fm,
      fences: [{ content: body.join("\n"), title: fenceTitle }],
    });
  }
  fm.set("view", trusted.text`thread`).set("comment_id", trusted.matching(commentId, COMMENT_ID));
  const target = threads.find((c) => c.id === commentId);
  if (!target) {
    throw new ToolError(
      `comment ${commentId} is not among the top-level comments of the first page (the top ${threads.length}); call without comment_id to see their ids`,
    );
  }
  const replies = target.repliesToken ? await fetchReplies(target.repliesToken!, ctx.signal) : [];
  fm.set("replies_in_view", replies.length);
  fm.append("hint", trusted.text`drop comment_id to see the top-level overview`);
  const body = [
    `## Thread for comment id=${target.id}`,
    "",
    line(target),
    "",
    `### Replies (${replies.length})`,
    "",
    ...(replies.length ? replies.map((r) => `- ${line(r)}`) : ["(no replies)"]),
  ];
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: body.join("\n"), title: fenceTitle }],
  });
}

const DESCRIPTION = `Comments of a YouTube video: without comment_id the top comments (author,
likes, age, replies, id); with comment_id, that comment and its replies.`;

/** The tool declaration. */
export const youtubeComments = defineTool({
  key: "youtube_comments",
  names: { desktop: "youtube_comments", code: "YoutubeComments" },
  title: "YouTube comments",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => handle(args, ctx),
});
