/**
 * Assembling a tool response: frontmatter, then server-written lines, then
 * fenced external text, under the response cap.
 *
 * No response exceeds {@link RESPONSE_TOKEN_CAP} tokens (Claude Code rejects
 * larger tool results). When a response would, the fenced text is cut at a
 * line boundary and the frontmatter says so (`truncated`, `original_tokens`,
 * `returned_tokens`) with a hint on how to read on.
 *
 * @module
 */
import { RESPONSE_TOKEN_CAP } from "../config.ts";
import type { SourceRemote } from "../errors.ts";
import {
  bestCount,
  estimateTokens,
  tokenWeight,
  truncateToTokens,
} from "../content/tokens/count.ts";
import { bestPieceCount } from "../content/tokens/pieces.ts";
import { htmlToText } from "../content/html/text.ts";
import { contentLines, fence, newFenceId, sanitizeLabel } from "./fence.ts";
import type { Frontmatter, RenderContext } from "./frontmatter.ts";
import { TipLedger } from "./tips.ts";
import { type Trusted, trusted } from "../trust.ts";

export { RESPONSE_TOKEN_CAP };

/** A tool result in MCP's shape, without depending on SDK types. */
export interface ToolResult {
  /** Text blocks; responses here always carry exactly one. */
  content: { type: "text"; text: string }[];
  /** Structured copy of the result (json output format). */
  structuredContent?: Record<string, unknown>;
  /** True when the call failed. */
  isError?: boolean;
}

/** External text to fence. */
export interface FencedPart {
  /** The text, as received or converted. */
  content: string;
  /** Title shown inside the fence, as its first line (page text may go here). */
  title?: string;
  /** Marker label, written by the server, never page text; `untrusted content` by default. */
  label?: string;
}

/** The parts of a response. */
export interface ResponseSpec {
  /** Trusted metadata. */
  frontmatter: Frontmatter;
  /** Server-written lines between frontmatter and fences (pagination notes). */
  notes?: Trusted[];
  /** External text, each part fenced. */
  fences?: FencedPart[];
  /** Structured copy (json output format). */
  structured?: Record<string, unknown>;
  /** How to read on when the cap cuts the response; a generic hint otherwise. */
  readOn?: Trusted;
}

/** Render settings: the profile's tool names, the tip ledger and the cap. */
export interface ResponseContext extends RenderContext {
  /** Cap in tokens; never above {@link RESPONSE_TOKEN_CAP}. */
  maxTokens?: number;
}

const DEFAULT_READ_ON = trusted
  .text`the response was cut to fit the size cap; ask for a narrower view (section=, search=, slices=) or a smaller max_tokens`;

function assemble(fmText: string, notes: string[], fenced: string[]): string {
  return [fmText, ...notes, ...fenced].join("\n\n");
}

/** Builds the final text (and structured copy) of a response. */
export function buildResponse(
  spec: ResponseSpec,
  context: ResponseContext,
): ToolResult {
  const cap = Math.min(context.maxTokens ?? RESPONSE_TOKEN_CAP, RESPONSE_TOKEN_CAP);
  const fm = spec.frontmatter;
  const parts = spec.fences ?? [];
  let id = newFenceId();
  while (parts.some((p) => p.content.includes(id))) id = newFenceId();
  if (parts.length > 0) fm.markFenced(id);
  const notes = (spec.notes ?? []).map(String);
  const render = (contents: string[]) =>
    contents.map((content, i) =>
      fence(content, { id, title: parts[i].title, label: parts[i].label })
    );

  const full = render(parts.map((p) => p.content));
  const dry = { ...context, tips: new TipLedger() };
  const fullText = assemble(fm.render(dry), notes, full);
  // Counted from the counts of its lines: most were counted when the view measured its answer.
  const originalTokens = bestPieceCount(fullText);
  let structured = spec.structured;
  if (originalTokens <= cap) {
    if (structured && bestCount(JSON.stringify(structured)) > cap) {
      structured = undefined;
      fm.append(
        "note",
        trusted.text`structuredContent omitted: it exceeds the size cap of ${cap} tokens`,
      );
    }
    return result(assemble(fm.render(context), notes, full), structured);
  }

  fm.set("truncated", true);
  fm.set("original_tokens", originalTokens);
  // Same order of magnitude as the final figure, so the measurement holds.
  fm.set("returned_tokens", cap);
  fm.append("hint", spec.readOn ?? DEFAULT_READ_ON);
  if (structured) {
    structured = undefined;
    fm.append(
      "note",
      trusted.text`structuredContent omitted because the response was cut`,
    );
  }
  // Measure everything but the fenced text, then share the rest in order.
  const skeleton = assemble(fm.render(dry), notes, render(parts.map(() => "")));
  // Pieces are chosen on the estimate, then the whole is counted and, if it
  // is still over the cap, cut again with the excess taken off.
  let room = cap - bestPieceCount(skeleton) - 16;
  let fencedCut: string[] = [];
  let returned = 0;
  for (let round = 0; round < 6; round++) {
    let budget = room;
    const cut = parts.map((p) => {
      const piece = cutForFence(p.content, Math.max(0, budget));
      budget -= fencedCost(piece);
      return piece;
    });
    fencedCut = render(cut);
    returned = bestPieceCount(assemble(fm.render(dry), notes, fencedCut));
    if (returned <= cap) break;
    room -= Math.ceil((returned - cap) * 1.1) + 16;
  }
  fm.set("returned_tokens", returned);
  return result(assemble(fm.render(context), notes, fencedCut));
}

// Each fenced line costs its text plus the margin ("│ ") and a line break.
const MARGIN_COST = tokenWeight("│ \n");

function fencedCost(content: string): number {
  const lines = contentLines(content);
  return tokenWeight(lines.join("\n")) + lines.length * MARGIN_COST;
}

/** The longest prefix of `content` whose fenced rendering fits `budget` tokens. */
function cutForFence(content: string, budget: number): string {
  const out: string[] = [];
  let used = 0;
  for (const line of contentLines(content)) {
    const cost = tokenWeight(line) + MARGIN_COST;
    if (used + cost > budget) {
      const rest = budget - used - MARGIN_COST;
      if (rest > 16) out.push(truncateToTokens(line, Math.floor(rest)));
      break;
    }
    out.push(line);
    used += cost;
  }
  return out.join("\n");
}

function result(text: string, structured?: Record<string, unknown>): ToolResult {
  const out: ToolResult = { content: [{ type: "text", text }] };
  if (structured) out.structuredContent = structured;
  return out;
}

/** Details of a failed upstream response, for {@link errorResult}. */
export type RemoteError = SourceRemote;

/** Longest extract of a remote error page shown to the caller. */
export const ERROR_EXTRACT_CHARS = 600;

/**
 * A failed call: `Error: <message>` with, when the upstream server explained
 * itself, a fenced extract of its error page. `message` is server-written
 * (it may quote the caller's own URL) and should say what to try next.
 */
export function errorResult(message: string, remote?: RemoteError): ToolResult {
  // One line: remote text quoted in a message cannot start a line of its own (a forged fence).
  // deno-lint-ignore no-control-regex
  const clean = message.toWellFormed().replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, " ");
  let text = clean.startsWith("Error: ") ? clean : `Error: ${clean}`;
  if (remote?.body) {
    const isHtml = /html/i.test(remote.contentType ?? "") ||
      /^\s*<(?:!doctype|html|head|body)/i.test(remote.body);
    let extract = isHtml ? htmlToText(remote.body) : remote.body.trim();
    if (extract.length > ERROR_EXTRACT_CHARS) {
      extract = extract.slice(0, ERROR_EXTRACT_CHARS).trimEnd() + " …";
    }
    if (extract && remote.label) {
      text += `\n\n${sanitizeLabel(remote.label)}:\n\n` +
        fence(extract, { id: newFenceId(), label: `untrusted ${sanitizeLabel(remote.label)}` });
    } else if (extract) {
      text += "\n\nThe server returned an error page:\n\n" +
        fence(extract, { id: newFenceId(), label: "untrusted error page" });
    }
  }
  return { content: [{ type: "text", text }], isError: true };
}

/** Re-exported for callers that build titles outside fences. */
export { sanitizeLabel };

/**
 * Last line of defence for the response cap: cuts an oversize text at a line
 * boundary and, if the cut lands inside a fence, closes that fence with its
 * own marker so no unfenced external text results.
 */
export function capText(text: string, cap: number = RESPONSE_TOKEN_CAP): string {
  const real = bestPieceCount(text);
  if (real <= cap) return text;
  const notice = "(response cut: it exceeded the size cap of " + cap +
    " tokens; ask for a narrower view)";
  // The cut is made on the estimate, scaled to the real count, and checked.
  const scale = estimateTokens(text) / real;
  let out = text;
  for (let room = cap - 64; room > 0 && bestPieceCount(out) > cap; room -= 256) {
    const lines = truncateToTokens(text, Math.floor(room * scale)).split("\n");
    let open: string | undefined;
    for (const line of lines) {
      if (line.startsWith("┌─ ")) open = line;
      else if (open && line === "└─ " + open.slice(3)) open = undefined;
    }
    if (open) lines.push("│", "└─ " + open.slice(3));
    out = lines.join("\n") + "\n\n" + notice;
  }
  return out;
}
