/**
 * Tool groups for `--tools` / `PARKOUR_TOOLS`, by tool key, and a check of a
 * selection that needs none of the tools' code (`install` checks its
 * `--tools` value with it before writing a client's configuration).
 *
 * @module
 */
import { ConfigError } from "../config.ts";

/** The shipped tools by group, in list order within each group. */
export const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  web: ["web_fetch_sections", "web_fetch_incisive"],
  scholarly: ["arxiv", "semantic_scholar", "ietf"],
  code: ["github", "packages", "huggingface"],
  community: ["mediawiki", "discourse", "youtube", "youtube_comments"],
  search: ["kagi_search"],
  shelf: ["research_shelf"],
};

/** The words of a selection: comma- or space-separated, lowercased. */
export function selectionWords(selection: string | readonly string[] | undefined): string[] {
  return (typeof selection === "string" ? [selection] : selection ?? [])
    .flatMap((s) => s.split(/[\s,]+/)).map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/**
 * Checks a selection against the shipped groups and tools (a key such as
 * `web_fetch_incisive` or a code-profile name such as `WebFetchIncisive`)
 * and returns it normalised (`web,github`); a {@link ConfigError} names an
 * unknown word and the valid ones.
 */
export function checkToolSelection(selection: string, where = "--tools"): string {
  const keys = Object.values(TOOL_GROUPS).flat();
  const words = selectionWords(selection);
  for (const word of words) {
    if (word === "all" || word in TOOL_GROUPS) continue;
    if (keys.some((k) => k === word || k.replaceAll("_", "") === word)) continue;
    throw unknownWord(where, word, keys);
  }
  if (words.length === 0) throw new ConfigError(`${where}: give groups or tool names`);
  return words.join(",");
}

/** The error for a word that is neither a group nor a tool. */
export function unknownWord(where: string, word: string, keys: readonly string[]): ConfigError {
  return new ConfigError(
    `${where}: unknown tool or group '${word.slice(0, 60)}'; groups: ${
      Object.keys(TOOL_GROUPS).join(", ")
    } (or all); tools: ${keys.join(", ")}`,
  );
}
