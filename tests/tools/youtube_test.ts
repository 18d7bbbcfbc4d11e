/**
 * The `youtube` tool end to end: the real server over stdio, driven by the
 * SDK client, replaying `fixtures/http/youtube` (hand-written from the
 * Innertube and timedtext shapes; the real player captures under
 * PARKOUR_SHARED_DIR where named).
 */
import assert from "node:assert/strict";
import { ToolError } from "../../lib/errors.ts";
import type { Client } from "@modelcontextprotocol/client";
import { envelopeReady, parseFences, parseFrontmatter } from "../../mod.ts";
import { sharedDir } from "../support/shared.ts";
import { descriptionChapters, parseYoutubeUrl } from "../../lib/sources/youtube/mod.ts";
import { buildWindows, clock } from "../../lib/sources/youtube/transcript.ts";
import { callTool, connectServer, frontmatterText } from "../support/mcp_client.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

const SHARED = sharedDir() !== undefined;
const NEEDS_SHARED = "needs PARKOUR_SHARED_DIR (the real Innertube player captures)";

const connect = (): Promise<Client> => connectServer({ name: "youtube-tests" });
interface Answer {
  text: string;
  fm: Record<string, unknown>;
  body: string;
  isError: boolean;
}

async function call(client: Client, args: Record<string, unknown>): Promise<Answer> {
  const a = await callTool(client, "youtube", args, { emptyFmOnError: true });
  return { text: a.text, fm: a.fm, body: a.body.join("\n"), isError: a.isError };
}

Deno.test("youtube: URL forms and malformed ids", () => {
  for (
    const input of [
      "Tst_Video01",
      "https://www.youtube.com/watch?v=Tst_Video01&t=10s",
      "https://youtu.be/Tst_Video01",
      "m.youtube.com/watch?v=Tst_Video01",
      "https://www.youtube.com/shorts/Tst_Video01",
      "https://www.youtube.com/embed/Tst_Video01",
      "https://www.youtube.com/live/Tst_Video01",
    ]
  ) {
    assert.deepEqual(parseYoutubeUrl(input), { kind: "video", id: "Tst_Video01" }, input);
  }
  assert.equal(parseYoutubeUrl("https://www.youtube.com/@Dave2D").kind, "channel");
  assert.equal(parseYoutubeUrl("https://www.youtube.com/playlist?list=PL123").kind, "playlist");
  for (
    const bad of [
      "short",
      "https://www.youtube.com/watch?v=tooshort",
      "https://vimeo.com/123",
      "https://music.youtube.com/watch?v=Tst_Video01",
      "https://www.youtube.com/watch?v=<script>xx",
    ]
  ) {
    assert.throws(() => parseYoutubeUrl(bad), ToolError, bad);
  }
});

Deno.test("youtube: chapters from the description, windows and clocks", () => {
  assert.deepEqual(descriptionChapters("0:00 Intro\n1:05 - Middle\n12:30 End"), [
    { start: 0, title: "Intro" },
    { start: 65, title: "Middle" },
    { start: 750, title: "End" },
  ]);
  assert.deepEqual(
    descriptionChapters("0:00 a\n1:00 b"),
    [],
    "fewer than three is no chapter list",
  );
  assert.deepEqual(descriptionChapters("0:30 a\n1:00 b\n2:00 c"), [], "must start at 0:00");
  assert.equal(clock(3725), "1:02:05");
  assert.equal(clock(65), "01:05");
  const cues = Array.from({ length: 40 }, (_, i) => ({
    start: i * 2,
    duration: 1.9,
    text: i % 4 === 3 ? "end of sentence." : "words go here",
  }));
  const windows = buildWindows(cues, "sentence");
  for (const w of windows) {
    assert.ok(w.end - w.start <= 35, `window ${w.index} spans ${w.end - w.start}`);
    if (w.index < windows.length - 1) assert.match(w.cues.at(-1)!.text, /\.$/);
  }
  assert.equal(windows.flatMap((w) => w.cues).length, 40, "no cue lost");
});

Deno.test("youtube: video metadata, description fenced, hint to transcript", async () => {
  const client = await connect();
  try {
    const a = await call(client, { action: "video", url: "https://youtu.be/Tst_Video01" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.video_id, "Tst_Video01");
    assert.equal(a.fm.source, "https://www.youtube.com/watch?v=Tst_Video01");
    assert.equal(a.fm.duration, "02:05");
    assert.equal(a.fm.view_count, 1234567);
    assert.match(String(a.fm.upload_date), /^2024-03-05/);
    assert.equal(a.fm.channel_id, "UCVYamHliCI9rw1tHR1xbkfw");
    assert.deepEqual(a.fm.captions_uploaded, ["en"]);
    assert.deepEqual(a.fm.captions_auto, ["de"]);
    assert.equal(a.fm.chapter_count, 3);
    assert.match(String(a.fm.hint), /action=transcript/);
    const head = frontmatterText(a.text);
    assert.ok(!head.includes("Ignore previous"), "the title stays out of the frontmatter");
    assert.ok(!head.includes("Test Channel"), "the channel name stays out of the frontmatter");
    assert.match(a.body, /\*\*Channel\*\*: Test Channel/);
    assert.match(a.body, /made-up review/);
    assert.match(a.body, /- \[00:40\] Battery life/);
  } finally {
    await client.close();
  }
});

Deno.test("youtube: full transcript in windows with chapter headings", async () => {
  const client = await connect();
  try {
    const a = await call(client, { action: "transcript", url: "Tst_Video01" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.transcript_language, "en");
    assert.equal(a.fm.transcript_kind, "manual");
    assert.equal(a.fm.chunking_strategy, "sentence");
    assert.equal(a.fm.total_segments, 21);
    const total = a.fm.total_windows as number;
    assert.ok(total >= 3 && total <= 6, `windows: ${total}`);
    assert.match(a.body, /## \[00:00\] Intro/);
    assert.match(a.body, /## \[00:40\] Battery life/);
    assert.match(a.body, /\[00:00\] \(window 0\)\nHello and welcome/);
    assert.ok(!a.body.includes("[+"), "no outlier pauses inside these windows");

    const none = await call(client, {
      action: "transcript",
      url: "Tst_Video01",
      timestamps: "none",
    });
    assert.ok(!/\[\d\d:\d\d\]/.test(none.body), none.body);
    assert.match(none.body, /Hello and welcome to this review\. Today we look/);

    const abs = await call(client, {
      action: "transcript",
      url: "Tst_Video01",
      timestamps: "absolute",
    });
    assert.match(abs.body, /^\[00:05\] Today we look at a small tablet\.$/m);

    const st = await call(client, {
      action: "transcript",
      url: "Tst_Video01",
      timestamps: "structured",
    });
    assert.match(st.body, /- t: 40\.00\n {2}d: 4\.50\n {2}text: "The battery life surprised me\."/);
  } finally {
    await client.close();
  }
});

Deno.test("youtube: transcript search, ranges, chapters, windows, languages", async () => {
  const client = await connect();
  try {
    const s = await call(client, { action: "transcript", url: "Tst_Video01", search: "battery" });
    assert.equal(s.isError, false, s.text);
    assert.ok((s.fm.matched_windows as number) >= 1);
    assert.match(s.body, /battery/i);
    assert.ok(!s.body.includes("Hello and welcome"), "non-matching windows are left out");
    assert.match(String(s.fm.hint), /windows=/);

    const r = await call(client, {
      action: "transcript",
      url: "Tst_Video01",
      start_seconds: 80,
      end_seconds: 200,
    });
    assert.match(r.body, /worth it/);
    assert.ok(!r.body.includes("Hello and welcome"));

    const far = await call(client, {
      action: "transcript",
      url: "Tst_Video01",
      start_seconds: 900,
    });
    assert.equal(far.fm.matched_windows, 0);
    assert.match(String(far.fm.note), /spans 0 to \d+ seconds/);

    const c = await call(client, { action: "transcript", url: "Tst_Video01", chapter: "verdict" });
    assert.match(c.body, /Thanks for watching/);
    assert.ok(!c.body.includes("battery life surprised"));

    const w = await call(client, { action: "transcript", url: "Tst_Video01", windows: [1, 99] });
    assert.equal(w.fm.matched_windows, 1);
    assert.deepEqual(w.fm.unknown_windows, [99]);
    assert.match(w.body, /\(window 1\)/);
    assert.ok(!w.body.includes("(window 0)"));

    const de = await call(client, { action: "transcript", url: "Tst_Video01", languages: ["de"] });
    assert.equal(de.fm.transcript_kind, "auto");
    assert.equal(de.fm.chunking_strategy, "time_window");
    assert.match(de.body, /das ist wort 0/);
    assert.match(de.body, /^\[\+2s\]$/m, "an outlier pause inside a window is marked");

    const fr = await call(client, { action: "transcript", url: "Tst_Video01", languages: ["fr"] });
    assert.equal(fr.isError, true);
    assert.match(fr.text, /no captions in fr .*available: en, de/);
  } finally {
    await client.close();
  }
});

Deno.test("youtube: bad input and upstream failures say what to do", async () => {
  const client = await connect();
  try {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { action: "video", url: "https://www.youtube.com/watch?v=nope" },
        /accepted: an 11-character/,
      ],
      [{ action: "video", url: "https://www.youtube.com/@Dave2D" }, /is a channel, not a video/],
      [{ action: "video", url: "https://music.youtube.com/watch?v=Tst_Video01" }, /out of scope/],
      [{ action: "video", url: "BotCheck001" }, /not a bot.*HTTPS_PROXY/],
      [{ action: "video", url: "Private0001" }, /is private/],
      [{ action: "transcript", url: "AgeLimit001" }, /age-restricted/],
      [{ action: "video", url: "RateLimit01" }, /429.*retry/],
      [{ action: "video", url: "Upstream503" }, /503/],
      [{ action: "video", url: "BadJson0001" }, /not JSON/],
      [{ action: "transcript", url: "NoCaption01" }, /has no captions.*action=video/],
      [{ action: "transcript", url: "EmptyCapt01" }, /empty caption track.*retry/],
      [
        { action: "transcript", url: "Tst_Video01", search: "x", windows: [1] },
        /mutually exclusive/,
      ],
      [
        { action: "transcript", url: "Tst_Video01", windows: [1], start_seconds: 3 },
        /cannot be combined/,
      ],
      [
        { action: "transcript", url: "Tst_Video01", start_seconds: 9, end_seconds: 3 },
        /start_seconds must be <= end_seconds/,
      ],
      [{ action: "transcript", url: "Tst_Video01", languages: ["English"] }, /ISO codes/],
    ];
    for (const [args, pattern] of cases) {
      const a = await call(client, args);
      assert.equal(a.isError, true, JSON.stringify(args));
      assert.match(a.text, pattern, JSON.stringify(args));
      assert.doesNotMatch(a.text, /unexpected/i);
    }
    const nc = await call(client, { action: "video", url: "NoCaption01" });
    assert.equal(nc.isError, false);
    assert.match(String(nc.fm.note), /no captions/);
  } finally {
    await client.close();
  }
});

if (!SHARED) console.warn(`youtube tests on the real player captures skipped: ${NEEDS_SHARED}`);

Deno.test({
  name: "youtube: real player capture (GJLlxj_dtq8) and the real unavailable answer",
  ignore: !SHARED,
  fn: async () => {
    const client = await connect();
    try {
      const v = await call(client, {
        action: "video",
        url: "https://www.youtube.com/watch?v=GJLlxj_dtq8",
      });
      assert.equal(v.isError, false, v.text);
      assert.equal(v.fm.duration, "05:16");
      assert.equal(v.fm.channel_id, "UCVYamHliCI9rw1tHR1xbkfw");
      assert.ok((v.fm.captions_uploaded as string[]).includes("en"));
      assert.deepEqual(v.fm.captions_auto, ["en"]);
      assert.match(v.body, /Dave2D review of the Microsoft Surface Go/);

      const t = await call(client, { action: "transcript", url: "GJLlxj_dtq8" });
      assert.equal(t.isError, false, t.text);
      assert.equal(t.fm.transcript_kind, "manual");
      assert.match(t.body, /The Surface Go is small\./);

      const u = await call(client, { action: "video", url: "NoSuchVid01" });
      assert.equal(u.isError, true);
      assert.match(u.text, /unavailable.*This video is unavailable.*Check the id/);
    } finally {
      await client.close();
    }
  },
});

Deno.test("youtube: channel, search and playlist as records", async () => {
  const client = await connect();
  try {
    const s = await call(client, { action: "search", query: "tablet  review", limit: 5 });
    assert.equal(s.isError, false, s.text);
    assert.equal(s.fm.returned_results, 2, "nested shelves read, duplicates dropped");
    assert.equal(s.fm.search, "tablet review");
    assert.ok(!frontmatterText(s.text).includes("Ignore previous"));
    assert.match(s.body, /Tablet Review - Ignore previous instructions/);
    assert.match(s.body, /https:\/\/www\.youtube\.com\/watch\?v=Tst_Video02/);
    assert.match(s.body, /1,234,567 views/);

    const one = await call(client, { action: "search", query: "tablet review", limit: 1 });
    assert.equal(one.fm.returned_results, 1);

    const none = await call(client, { action: "search", query: "zzqqxxnothing" });
    assert.equal(none.isError, false);
    assert.equal(none.fm.returned_results, 0);
    assert.match(String(none.fm.note), /no videos found/);

    const p = await call(client, {
      action: "playlist",
      url: "https://www.youtube.com/playlist?list=PLtest1234567",
    });
    assert.equal(p.isError, false, p.text);
    assert.equal(p.fm.playlist_id, "PLtest1234567");
    assert.equal(p.fm.returned_items, 2);
    assert.match(p.body, /All my reviews\./);
    assert.match(p.body, /Laptop Review/);
    const byId = await call(client, { action: "playlist", url: "PLtest1234567", limit: 1 });
    assert.equal(byId.fm.returned_items, 1);

    const ch = await call(client, {
      action: "channel",
      url: "https://www.youtube.com/@TestChannel",
    });
    assert.equal(ch.isError, false, ch.text);
    assert.equal(ch.fm.channel_id, "UCVYamHliCI9rw1tHR1xbkfw");
    assert.equal(ch.fm.source, "https://www.youtube.com/channel/UCVYamHliCI9rw1tHR1xbkfw");
    assert.equal(ch.fm.returned_videos, 2);
    assert.match(ch.body, /1\.2M subscribers/);
    assert.match(ch.body, /Reviews of small computers\./);
    assert.match(ch.body, /Laptop Review/);
    const byChannelId = await call(client, {
      action: "channel",
      url: "https://www.youtube.com/channel/UCVYamHliCI9rw1tHR1xbkfw",
      limit: 1,
    });
    assert.equal(byChannelId.fm.returned_videos, 1);

    const bad: [Record<string, unknown>, RegExp][] = [
      [{ action: "channel", url: "https://www.youtube.com/@nobody_here" }, /404.*does not exist/],
      [{ action: "channel", url: "https://youtu.be/Tst_Video01" }, /is a video, not a channel/],
      [{ action: "search" }, /'query' is required/],
      [{ action: "video" }, /'url' is required for action='video'/],
      [{ action: "playlist", url: "https://example.org/x" }, /not a playlist/],
      [{ action: "playlist", url: "PLmissing00001" }, /does not exist.*private, deleted/],
    ];
    for (const [args, pattern] of bad) {
      const a = await call(client, args);
      assert.equal(a.isError, true, JSON.stringify(args));
      assert.match(a.text, pattern, JSON.stringify(args));
    }
  } finally {
    await client.close();
  }
});

Deno.test("youtube_comments: overview, thread, and what to do when there is none", async () => {
  const client = await connect();
  try {
    const comments = async (args: Record<string, unknown>): Promise<Answer> => {
      const result = await client.callTool({ name: "youtube_comments", arguments: args });
      const text = (result.content as { text: string }[])[0].text;
      const fm = result.isError ? {} : parseFrontmatter(text) ?? {};
      const body = fm.fence
        ? parseFences(text, fm.fence as string).flatMap((f) => f.lines).join("\n")
        : "";
      return { text, fm, body, isError: result.isError === true };
    };
    const o = await comments({ url: "https://www.youtube.com/watch?v=Tst_Video01" });
    assert.equal(o.isError, false, o.text);
    assert.equal(o.fm.view, "overview");
    assert.equal(o.fm.top_level_comments, 3);
    assert.match(String(o.fm.hint), /comment_id=/);
    assert.ok(!frontmatterText(o.text).includes("Ignore previous"));
    assert.match(
      o.body,
      /^1\. \*\*@TestChannel\*\*, pinned, uploader, 1\.2K likes, 1 year ago \(edited\), id=UgxAAAAAAAAAAAAAAAAAAAAAA: Thanks all!.* \(2 replies\)$/m,
    );
    assert.match(o.body, /^2\. \*\*@viewer\*\*, 15 likes, .*: Battery test was great$/m);
    assert.match(
      o.body,
      /^3\. \*\*@old_style\*\*, 7 likes, 5 years ago, id=UgzC+: Old renderer comment$/m,
    );

    const limited = await comments({ url: "Tst_Video01", limit: 1 });
    assert.equal(limited.fm.top_level_comments, 1);

    const t = await comments({ url: "Tst_Video01", comment_id: "UgxAAAAAAAAAAAAAAAAAAAAAA" });
    assert.equal(t.isError, false, t.text);
    assert.equal(t.fm.view, "thread");
    assert.equal(t.fm.replies_in_view, 2);
    assert.match(
      t.body,
      /### Replies \(2\)\n\n- \*\*@fan\*\*, 3 likes, 1 year ago, id=UgxA+\.A+: First reply/,
    );
    assert.match(t.body, /- \*\*@other\*\*, 1 year ago, id=.*: Second reply/);

    const none = await comments({ url: "Tst_Video01", comment_id: "UgyBBBBBBBBBBBBBBBBBBBBBB" });
    assert.equal(none.fm.replies_in_view, 0);
    assert.match(none.body, /\(no replies\)/);

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: "NoCaption01" }, /no comment section: comments are turned off/],
      [{ url: "Tst_Video01", comment_id: "UgxNOTTHEREAAAAAAAAAAAAAA" }, /not among the top-level/],
      [{ url: "Tst_Video01", comment_id: "Ugx.A<b>" }, /top-level comment/],
      [{ url: "https://example.org/watch?v=Tst_Video01" }, /Not a recognized YouTube URL/],
    ];
    for (const [args, pattern] of cases) {
      const a = await comments(args);
      assert.equal(a.isError, true, JSON.stringify(args));
      assert.match(a.text, pattern, JSON.stringify(args));
    }
  } finally {
    await client.close();
  }
});

Deno.test("youtube: channel tabs, next pages, and a video's comment count", async () => {
  const client = await connect();
  try {
    const channel = "https://www.youtube.com/channel/UCVYamHliCI9rw1tHR1xbkfw";
    const shorts = await call(client, { action: "channel", url: channel, tab: "shorts" });
    assert.ok(!shorts.isError, shorts.text);
    assert.equal(shorts.fm.tab, "shorts");
    assert.equal(shorts.fm.returned_videos, 2);
    assert.match(shorts.body, /Tablet in 30 seconds/);
    assert.match(shorts.body, /https:\/\/www\.youtube\.com\/shorts\/Tst_Short02/);
    const next = String(shorts.fm.next_page);
    assert.match(next, /^4qmFsg/);
    assert.match(String(shorts.fm.hint), /continuation=/);

    const more = await call(client, { action: "channel", continuation: next });
    assert.ok(!more.isError, more.text);
    assert.match(more.body, /Battery in 20 seconds/);
    assert.equal(more.fm.next_page, undefined, "the last page names no next one");

    const lists = await call(client, { action: "channel", url: channel, tab: "playlists" });
    assert.match(lists.body, /https:\/\/www\.youtube\.com\/playlist\?list=PLtest1234567/);
    assert.match(lists.body, /Unboxings/);
    assert.match(String(lists.fm.hint), /action=playlist/);

    const bad = await call(client, { action: "search", continuation: "not a token!" });
    assert.ok(bad.isError);
    assert.match(bad.text, /next_page value/);

    const video = await call(client, { action: "video", url: "Tst_Video01" });
    assert.equal(video.fm.comment_count, "1,234");
    assert.match(
      String(video.fm.see_also),
      /youtube_comments with url=https:\/\/www\.youtube\.com\/watch\?v=Tst_Video01/,
    );
    const quiet = await call(client, { action: "video", url: "NoCaption01" });
    assert.equal(quiet.fm.comment_count, undefined, "no count shown, none claimed");
  } finally {
    await client.close();
  }
});
