/**
 * A page command's answer as the person asked for it: the envelope (the MCP
 * tools' answer, for agents and pipes), `text` (no fence margins, an outline
 * drawn as a tree, hints under the text; the default on a terminal),
 * `markdown` (the page text alone) or `json`; and its exit code.
 *
 * @module
 */
import { env } from "../config.ts";
import { type ParsedFence, parseFences } from "../envelope/fence.ts";
import { parseFrontmatter } from "../envelope/frontmatter.ts";
import type { Flags } from "../flags.ts";
import type { PageAnswer } from "../tools/page_answer.ts";
import { palette, textReport } from "./terminal.ts";

/**
 * Prints `answer` in the format `flags` ask for (`shownSource`: how the
 * text format names a file) and returns the exit code: 1 for an error or
 * when nothing asked for exists.
 */
export function printAnswer(answer: PageAnswer, flags: Flags, shownSource?: string): number {
  const { result, view: v } = answer;
  const text = result.content[0]?.text ?? "";
  const format = typeof flags["--format"] === "string"
    ? flags["--format"]
    : Deno.stdout.isTerminal()
    ? "text"
    : "envelope";
  const meta = parseFrontmatter(text);
  const fences = meta?.fence
    ? withoutTitle(parseFences(text, String(meta.fence)), answer.title)
    : [];
  if (format === "json") {
    // The outline as the list of its sections; any other answer as frontmatter and contents.
    const outline = !result.isError && v?.outline ? v.outline.entries : undefined;
    console.log(JSON.stringify(
      {
        error: result.isError === true,
        frontmatter: meta ?? {},
        ...(outline ? { sections: outline } : { content: fences.map((f) => f.lines.join("\n")) }),
        text: meta ? undefined : text,
      },
      null,
      2,
    ));
  } else if (format === "markdown" && !result.isError) {
    // The page text alone: the view's body (and the closest names of sections not found).
    const parts = v ? [v.body, v.extra?.content ?? ""].filter(Boolean) : [];
    console.log(
      v
        ? parts.join("\n\n")
        : fences.length
        ? fences.map((f) => f.lines.join("\n")).join("\n\n")
        : text,
    );
    // Stdout stays the page text; how to read on (a cut page, more windows) goes to stderr.
    if (meta?.truncated === true || meta?.total_slices !== undefined) {
      for (const line of [meta.hint ?? []].flat()) console.error(`next: ${line}`);
    }
  } else if (format === "text") {
    const out = result.isError ? Deno.stderr : Deno.stdout;
    const colour = palette(out.isTerminal(), env("NO_COLOR"));
    if (!meta) (result.isError ? console.error : console.log)(colour.red(text));
    else {
      const report = textReport(
        {
          meta,
          contents: fences.map((f) => f.lines.join("\n")),
          entries: v?.outline?.entries,
          shownSource,
        },
        { colour, columns: terminalColumns() },
      );
      (result.isError ? console.error : console.log)(report);
    }
  } else {
    (result.isError ? console.error : console.log)(text);
  }
  if (result.isError) return 1;
  // Nothing of what was asked exists: not a success.
  const notFound = meta?.sections_not_found !== undefined && meta?.sections_returned === undefined;
  const noSlice = meta?.slices_not_found !== undefined && meta?.slices === undefined;
  return notFound || noSlice ? 1 : 0;
}

/**
 * The fences' contents without the title line the body's fence opens with
 * (`# <title>` and a blank line): the text and json formats print the page
 * text, as the markdown format does, and the text format names the page in
 * its facts.
 */
function withoutTitle(fences: ParsedFence[], title?: string): ParsedFence[] {
  if (!title || fences.length === 0) return fences;
  const [first, ...rest] = fences;
  if (first.lines[0] !== `# ${title}`) return fences;
  const lines = first.lines.slice(first.lines[1] === "" ? 2 : 1);
  return [{ ...first, lines }, ...rest];
}

/** The terminal's width, or 100 when stdout is not a terminal. */
function terminalColumns(): number {
  try {
    const columns = Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 0;
    // A pseudo-terminal may report no size at all.
    return columns >= 40 ? columns : 100;
  } catch {
    return 100;
  }
}
