/**
 * `parkour fetch` and `parkour sections`: the page request from the command
 * line's flags (`page_flags.ts`), the page read ({@link readPage}, files
 * too), its answer as the MCP page tools give it, printed in the format
 * asked for (`page_output.ts`). This module and the page tools load only
 * when one of these commands runs.
 *
 * A page command is a one-shot process: it reads one page, answers and
 * exits, so it loads only what that needs. Not the other tools (their
 * sources, the shelf's exports): its answers are the page tools', and a
 * tip names only them. No conversion worker: a large page converts on this
 * thread ({@link convertOnThisThread}). No tokenizer for an outline, whose
 * counts are estimates (`readPage` loads it for the views that count real
 * tokens).
 *
 * @module
 */
import { configFromEnv } from "../config.ts";
import type { Flags } from "../flags.ts";
import { toolContext, ToolRegistry } from "../tools/registry.ts";
import { webFetchIncisive } from "../tools/web_fetch_incisive.ts";
import { webFetchSections } from "../tools/web_fetch_sections.ts";
import { convertOnThisThread } from "../content/pipeline.ts";
import { outlineAnswer, type PageAnswer, pageAnswer } from "../tools/page_answer.ts";
import type { HintContext } from "../hint.ts";
import { readPage } from "../views/read.ts";
import {
  fromText,
  OUTLINE_KEYS,
  outlineRequestSchema,
  PAGE_KEYS,
  pageRequestSchema,
  paramName,
  parseWith,
  RequestError,
} from "../views/request.ts";
import { loadFileOrPage, pageTarget } from "../sources/file/argument.ts";
import { envelopeReady } from "../envelope/frontmatter.ts";
import { toolFailure } from "../tools/failure.ts";
import { progress } from "./terminal.ts";
import { printAnswer } from "./page_output.ts";
import { cliCommand, invokedFrom } from "./invocation.ts";
import { applySharedFlags, UsageError } from "./spec.ts";

/** The request a page command's flags make, checked by the request schema. */
function pageInput(flags: Flags, keys: readonly string[], url: string): Record<string, unknown> {
  const input: Record<string, unknown> = { url };
  for (const key of keys) {
    const value = flags[paramName("cli", key)];
    if (value === undefined) continue;
    if (value === true) input[key] = true;
    else input[key] = fromText(key, Array.isArray(value) ? value : [String(value)]);
  }
  return input;
}

/** Runs `fetch` or `sections` on `target`; resolves to the exit code. */
export async function runPageCommand(
  kind: "fetch" | "sections",
  flags: Flags,
  target: string,
): Promise<number> {
  convertOnThisThread();
  await envelopeReady();
  const config = applySharedFlags(configFromEnv(), flags);
  // The page tools, whose answers these are (and the only tools their tips name).
  const registry = new ToolRegistry([webFetchSections, webFetchIncisive], config.profile);
  const ctx = toolContext({
    registry,
    defaultOutput: config.defaultOutput,
    signal: new AbortController().signal,
  });
  const { url, note } = pageTarget(target, invokedFrom());
  if (note) console.error(note);
  const hints: HintContext = { face: "cli", command: cliCommand(), target };
  // `--slice all`: the whole outline in one window.
  const whole = flags["--slice"] === "all";
  const viewFlags: Flags = { ...flags };
  if (whole) delete viewFlags["--slice"];
  const shown = url.startsWith("file:") ? target : url;
  const working = progress(`reading ${shown}`);
  const reading = {
    load: loadFileOrPage,
    files: true,
    signal: ctx.signal,
    empty: "shell",
  } as const;
  let answer: PageAnswer;
  try {
    if (kind === "sections") {
      const args = parseWith(outlineRequestSchema, pageInput(viewFlags, OUTLINE_KEYS, url));
      const read = await readPage(args, { ...reading, outline: true });
      answer = await outlineAnswer(
        read,
        args,
        ctx,
        hints,
        whole ? Number.MAX_SAFE_INTEGER : undefined,
      );
    } else {
      // Conflicting views are refused before anything is read (a usage error here).
      const args = parseWith(pageRequestSchema, pageInput(viewFlags, PAGE_KEYS, url));
      answer = await pageAnswer(await readPage(args, reading), args, ctx, hints);
    }
  } catch (error) {
    if (error instanceof RequestError) throw new UsageError(error.forFace("cli"));
    if (error instanceof UsageError) throw error;
    answer = { result: toolFailure(kind, error, hints) };
  } finally {
    working.stop();
  }
  return printAnswer(answer, flags, url.startsWith("file:") ? target : undefined);
}
