/**
 * The tools the server ships, in `tools/list` order. Each tool lives in its
 * own module in this folder and is added here.
 *
 * @module
 */
import { arxivTool } from "./arxiv.ts";
import { discourse } from "./discourse.ts";
import { s2LicenceAccepted } from "../config.ts";
import { githubTool } from "./github.ts";
import { huggingface } from "./huggingface.ts";
import { ietf } from "./ietf.ts";
import { kagiSearch } from "./kagi_search.ts";
import { mediawiki } from "./mediawiki.ts";
import { packages } from "./packages.ts";
import type { ToolDefinition } from "./registry.ts";
import { researchShelf } from "./research_shelf.ts";
import { semanticScholar } from "./semantic_scholar.ts";
import { webFetchIncisive } from "./web_fetch_incisive.ts";
import { webFetchSections } from "./web_fetch_sections.ts";
import { youtube } from "./youtube.ts";
import { youtubeComments } from "./youtube_comments.ts";

/** Every shipped tool, in list order. */
export const TOOLS: readonly ToolDefinition[] = [
  webFetchSections,
  webFetchIncisive,
  kagiSearch,
  arxivTool,
  researchShelf,
  ietf,
  githubTool,
  packages,
  huggingface,
  mediawiki,
  discourse,
  youtube,
  youtubeComments,
  // Only once the user accepted the Semantic Scholar API licence (S2_ACCEPT_TOS).
  ...(s2LicenceAccepted() ? [semanticScholar] : []),
];
