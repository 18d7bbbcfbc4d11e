/**
 * Transcript windows: caption cues coalesced into windows of about 30 s,
 * cut at sentence ends (punctuated tracks) or pauses (auto captions
 * without punctuation) and at chapter starts, and rendered in four timestamp modes.
 *
 * @module
 */
import type { Chapter, Cue } from "./mod.ts";

/** A window of consecutive cues. */
export interface Window {
  /** Index, from 0. */
  index: number;
  /** Start in seconds. */
  start: number;
  /** End in seconds. */
  end: number;
  /** Its cues. */
  cues: Cue[];
  /** Title of the chapter it starts in, if any. */
  chapter?: string;
}

/** How windows were cut. */
export type Chunking = "sentence" | "time_window";

/** Timestamp rendering modes. */
export const TIMESTAMP_MODES = ["compact", "absolute", "none", "structured"] as const;
/** A timestamp rendering mode. */
export type TimestampMode = typeof TIMESTAMP_MODES[number];

const MAX_WINDOW = 35;
const MIN_WINDOW = 25;
const PAUSE = 1.0;
const SENTENCE_END = /[.!?…。！？]["')\]]?$/;

/** Whether a track is punctuated enough to cut at sentence ends. */
export function isPunctuated(cues: Cue[], auto: boolean): boolean {
  if (auto) return false;
  const words = cues.reduce((n, c) => n + c.text.split(" ").length, 0);
  const enders = cues.reduce((n, c) => n + (c.text.match(/[.!?…。！？]/g)?.length ?? 0), 0);
  return words > 0 && enders / words >= 0.05;
}

function cueEnd(c: Cue): number {
  return c.start + c.duration;
}

/** Coalesces cues into windows. */
export function buildWindows(
  cues: Cue[],
  chunking: Chunking,
  chapters: Chapter[] = [],
): Window[] {
  const groups: Cue[][] = [];
  let current: Cue[] = [];
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i];
    const opensChapter = chapters.some((c) =>
      c.start > 0 && c.start <= cue.start + 0.001 && (i === 0 || cues[i - 1].start < c.start)
    );
    if (
      current.length > 0 && (opensChapter || cueEnd(cue) - current[0].start > MAX_WINDOW)
    ) {
      groups.push(current);
      current = [];
    }
    current.push(cue);
    const span = cueEnd(cue) - current[0].start;
    if (span >= MIN_WINDOW) {
      const next = cues[i + 1];
      const cut = chunking === "sentence"
        ? SENTENCE_END.test(cue.text)
        : next === undefined || next.start - cueEnd(cue) >= PAUSE;
      if (cut) {
        groups.push(current);
        current = [];
      }
    }
  }
  if (current.length > 0) groups.push(current);
  return groups.map((group, index) => {
    const start = group[0].start;
    let chapter: string | undefined;
    for (const c of chapters) if (c.start <= start + 0.001) chapter = c.title;
    return {
      index,
      start,
      end: Math.max(...group.map(cueEnd)),
      cues: group,
      chapter,
    };
  });
}

/** `MM:SS`, or `H:MM:SS` past an hour. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0
    ? `${h}:${String(m).padStart(2, "0")}:${sec}`
    : `${String(m).padStart(2, "0")}:${sec}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Gaps inside windows that stand out: `[+Ns]` markers for compact mode. */
function pauseThresholds(cues: Cue[]): (gap: number, i: number) => boolean {
  const gaps = cues.slice(1).map((c, i) => c.start - cueEnd(cues[i]));
  if (gaps.length < 10) return (gap) => gap >= 3;
  return (gap, i) => {
    const recent = gaps.slice(Math.max(0, i - 10), i);
    const m = recent.length ? median(recent) : median(gaps);
    return gap >= Math.max(2 * m, 1.5);
  };
}

function yamlString(text: string): string {
  return JSON.stringify(text);
}

/** Renders windows in a timestamp mode. `headings` adds chapter headings. */
export function renderWindows(
  windows: Window[],
  mode: TimestampMode,
  headings: boolean,
): string {
  const all = windows.flatMap((w) => w.cues);
  switch (mode) {
    case "none":
      return windows.map((w) => w.cues.map((c) => c.text).join(" ")).join("\n\n");
    case "absolute":
      return windows.map((w) => w.cues.map((c) => `[${clock(c.start)}] ${c.text}`).join("\n"))
        .join("\n\n");
    case "structured":
      return all.map((c) =>
        `- t: ${c.start.toFixed(2)}\n  d: ${c.duration.toFixed(2)}\n  text: ${yamlString(c.text)}`
      ).join("\n");
    case "compact": {
      const outlier = pauseThresholds(all);
      const position = new Map(all.map((c, i) => [c, i]));
      const out: string[] = [];
      let lastChapter: string | undefined;
      for (const w of windows) {
        if (headings && w.chapter !== undefined && w.chapter !== lastChapter) {
          out.push(`## [${clock(w.start)}] ${w.chapter}`);
        }
        lastChapter = w.chapter;
        const lines = [`[${clock(w.start)}] (window ${w.index})`];
        w.cues.forEach((c, k) => {
          const i = position.get(c)!;
          if (k > 0) {
            const gap = c.start - cueEnd(w.cues[k - 1]);
            if (outlier(gap, i - 1)) lines.push(`[+${Math.round(gap)}s]`);
          }
          lines.push(c.text);
        });
        out.push(lines.join("\n"));
      }
      return out.join("\n\n");
    }
  }
}
