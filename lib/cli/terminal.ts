/**
 * The command line's output for a person at a terminal: the `text` format of
 * `fetch` and `sections` (no fence margins, an outline drawn as a tree with
 * aligned addresses, hints under the text), colour where it helps (never
 * with `NO_COLOR`, never into a pipe), a progress line on stderr for work
 * that takes over a second, and the banner `serve` shows when a person
 * starts it by hand. Agents and pipes keep the envelope.
 *
 * @module
 */
import type { OutlineEntry } from "../views/view.ts";

/** Styles applied to terminal text; all identity functions when colour is off. */
export interface Palette {
  /** Whether colour is on. */
  on: boolean;
  /** Secondary text (facts, tree lines, token counts). */
  dim(text: string): string;
  /** Headings and titles. */
  bold(text: string): string;
  /** Addresses and commands to type. */
  cyan(text: string): string;
  /** Notes and warnings. */
  yellow(text: string): string;
  /** Errors. */
  red(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

/**
 * Colour for a stream: on when it is a terminal and `NO_COLOR` is unset or
 * empty (https://no-color.org), off otherwise.
 */
export function palette(isTerminal: boolean, noColor: string | undefined): Palette {
  const on = isTerminal && !noColor;
  const id = (text: string) => text;
  return on
    ? {
      on,
      dim: sgr(2, 22),
      bold: sgr(1, 22),
      cyan: sgr(36, 39),
      yellow: sgr(33, 39),
      red: sgr(31, 39),
    }
    : { on, dim: id, bold: id, cyan: id, yellow: id, red: id };
}

/** Visible width of a string (terminal escapes take none; wide characters are not measured). */
function width(text: string): number {
  // deno-lint-ignore no-control-regex
  return [...text.replace(/\x1b\[[0-9;]*m/g, "")].length;
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join("")}…`;
}

/** `1234` as `1,234`. */
function count(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * An outline window drawn as a tree: box-drawing branches by nesting, the
 * titles clipped to fit `columns`, the addresses in one aligned column and
 * each section's own tokens (with its subsections' in brackets when it has
 * any) right-aligned after them.
 *
 * ```text
 * Widget Field Guide        #top       12
 * ├─ Choosing a widget      #choosing  40  (88)
 * │  └─ Sizes               #sizes     48
 * └─ Frequently asked       #faq       30
 * ```
 */
export function outlineTree(
  entries: readonly OutlineEntry[],
  options: { columns?: number; colour?: Palette } = {},
): string[] {
  const c = options.colour ?? palette(false, undefined);
  if (entries.length === 0) return [];
  const shown = new Set(entries.map((e) => e.index));
  const byIndex = new Map(entries.map((e) => [e.index, e]));
  // Siblings in the window, by parent (a parent outside the window counts as the root).
  const siblings = new Map<number, OutlineEntry[]>();
  const parentOf = (e: OutlineEntry) => (shown.has(e.parent) ? e.parent : -1);
  for (const e of entries) {
    const list = siblings.get(parentOf(e)) ?? [];
    list.push(e);
    siblings.set(parentOf(e), list);
  }
  const isLast = (e: OutlineEntry) => siblings.get(parentOf(e))!.at(-1) === e;
  const rootCount = siblings.get(-1)?.length ?? 0;
  const prefixes = entries.map((e) => {
    // A single root (the page title) is drawn without a branch, its children below it.
    const chain: OutlineEntry[] = [];
    for (let p: OutlineEntry | undefined = e; p; p = byIndex.get(parentOf(p))) chain.unshift(p);
    const skip = rootCount === 1 ? 1 : 0;
    let prefix = "";
    chain.forEach((node, depth) => {
      if (depth < skip) return;
      const last = isLast(node);
      prefix += depth === chain.length - 1 ? (last ? "└─ " : "├─ ") : (last ? "   " : "│  ");
    });
    return prefix;
  });
  const own = entries.map((e) => count(e.tokens));
  const ownWidth = Math.max(...own.map((t) => width(t)));
  const tokens = entries.map((e, i) =>
    own[i].padStart(ownWidth) +
    (e.subtree_tokens > e.tokens ? `  (${count(e.subtree_tokens)})` : "")
  );
  const tokenWidth = Math.max(...tokens.map((t) => width(t)));
  const addressWidth = Math.min(40, Math.max(...entries.map((e) => width(e.address))));
  const columns = Math.max(40, options.columns ?? 100);
  const room = columns - addressWidth - tokenWidth - 4;
  const labels = entries.map((e, i) =>
    clip(e.title + (e.header_only ? " [header only]" : ""), Math.max(8, room - width(prefixes[i])))
  );
  const labelWidth = Math.max(...labels.map((l, i) => width(prefixes[i]) + width(l)));
  return entries.map((e, i) => {
    const left = prefixes[i] + labels[i];
    const pad = " ".repeat(labelWidth - width(left));
    const title = e.level <= 1 || prefixes[i] === "" ? c.bold(labels[i]) : labels[i];
    return `${c.dim(prefixes[i])}${title}${pad}  ${
      c.cyan(clip(e.address, 40).padEnd(addressWidth))
    }  ${c.dim(tokens[i])}`.replace(/\s+$/, "");
  });
}

/** Frontmatter keys a person does not need to see (the fence's own bookkeeping). */
const HIDDEN = new Set(["trust", "fence", "hint", "note", "warning"]);

function messages(meta: Record<string, unknown>, c: Palette): string[] {
  const out: string[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  for (const m of list(meta.warning)) out.push(`${c.yellow("warning:")} ${m}`);
  for (const m of list(meta.note)) out.push(`${c.yellow("note:")} ${m}`);
  for (const m of list(meta.hint)) out.push(`${c.cyan("next:")} ${m}`);
  return out;
}

function factLine(key: string, value: unknown): string {
  const text = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  return `${key}: ${text}`;
}

/**
 * A result for a person: the facts (dim, one per line), the page text
 * without fence margins (an outline as a tree), then warnings, notes and
 * next steps.
 */
export function textReport(
  parts: {
    meta: Record<string, unknown>;
    contents: string[];
    entries?: readonly OutlineEntry[];
    /** The page as the person named it, shown instead of a `file://` source. */
    shownSource?: string;
  },
  options: { columns?: number; colour?: Palette } = {},
): string {
  const c = options.colour ?? palette(false, undefined);
  const facts = Object.entries(parts.meta).filter(([k]) => !HIDDEN.has(k)).map((
    [k, v],
  ): [string, unknown] => [k, k === "source" && parts.shownSource ? parts.shownSource : v]);
  const lines = facts.map(([k, v]) => c.dim(factLine(k, v)));
  lines.push("");
  if (parts.entries && parts.entries.length > 0) {
    lines.push(...outlineTree(parts.entries, options));
    lines.push("", c.dim("(tokens of each section's own text, with its subsections in brackets)"));
  } else {
    for (const [i, whole] of parts.contents.entries()) {
      // The envelope's title line, when the page text starts with the same heading, is said once.
      const twice = whole.match(/^(# [^\n]+)\n+(# [^\n]+)\n/);
      const content = i === 0 && twice && twice[1] === twice[2]
        ? whole.slice(whole.indexOf("\n") + 1).replace(/^\n+/, "")
        : whole;
      lines.push(
        ...content.split("\n").map((l) => (/^#{1,6} /.test(l) ? c.bold(l) : l)),
        "",
      );
    }
  }
  const after = messages(parts.meta, c);
  if (after.length > 0) lines.push("", ...after);
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").replace(/\s+$/, "");
}

/** A running progress line; {@link Progress.stop} clears it. */
export interface Progress {
  /** Clears the line (if it was drawn) and stops the timer. */
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * After `delayMs` (a second by default), a line on stderr saying what is
 * being done and for how long, redrawn ten times a second until stopped.
 * Nothing is drawn when stderr is not a terminal.
 */
export function progress(
  label: string,
  options: { delayMs?: number; isTerminal?: boolean; colour?: Palette } = {},
): Progress {
  const terminal = options.isTerminal ?? Deno.stderr.isTerminal();
  if (!terminal) return { stop() {} };
  const c = options.colour ?? palette(true, Deno.env.get("NO_COLOR"));
  const started = performance.now();
  const encoder = new TextEncoder();
  let drawn = false;
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const draw = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const line = `${FRAMES[frame++ % FRAMES.length]} ${label} ${c.dim(`(${seconds} s)`)}`;
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[2K${line}`));
    drawn = true;
  };
  const delay = setTimeout(() => {
    draw();
    timer = setInterval(draw, 100);
  }, options.delayMs ?? 1000);
  return {
    stop() {
      clearTimeout(delay);
      if (timer !== undefined) clearInterval(timer);
      if (drawn) Deno.stderr.writeSync(encoder.encode("\r\x1b[2K"));
    },
  };
}

/**
 * What `serve` says on stderr when a person starts it on a terminal: what it
 * is, that it waits for an MCP client, how to install it into one and how
 * to try the command line instead.
 */
export function serveBanner(
  parts: { name: string; version: string; command: string },
  colour: Palette = palette(false, undefined),
): string {
  const c = colour;
  return [
    `${c.bold(`${parts.name} ${parts.version}`)}: an MCP server speaking JSON-RPC on stdin/stdout.`,
    "It is waiting for an MCP client; typing here is not how to use it (Ctrl-C or Ctrl-D ends it).",
    `  add it to a client:   ${
      c.cyan(`${parts.command} install`)
    }  (asks which; or --target cursor)`,
    `  read a page here:     ${c.cyan(`${parts.command} sections example.org`)}`,
    `  check this machine:   ${c.cyan(`${parts.command} doctor`)}`,
  ].join("\n");
}
