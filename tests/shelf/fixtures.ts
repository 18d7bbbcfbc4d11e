/**
 * Shelf records for the shelf tests: a journal article with its arXiv
 * version, a preprint, an RFC, a repository, a retracted paper.
 */
import type { CitationInput } from "../../lib/shelf/mod.ts";

/** The journal version of "Deep learning" (Nature), with no arXiv twin. */
export const NATURE: CitationInput = {
  doi: "10.1038/nature14539",
  title: "Deep learning",
  authors: ["LeCun, Yann", "Bengio, Yoshua", "Hinton, Geoffrey"],
  year: 2015,
  venue: "Nature",
  sourceTool: "doi",
  kind: "article",
  url: "https://www.nature.com/articles/nature14539",
};

/** "Attention Is All You Need" as arXiv reports it. */
export const ATTENTION_ARXIV: CitationInput = {
  doi: "10.48550/arXiv.1706.03762",
  title: "Attention Is All You Need",
  authors: ["Vaswani, Ashish", "Shazeer, Noam"],
  year: 2017,
  sourceTool: "arxiv",
  kind: "preprint",
  arxivId: "1706.03762",
};

/** A journal version that names the arXiv DOI as another DOI of the work. */
export const ATTENTION_JOURNAL: CitationInput = {
  doi: "10.5555/3295222.3295349",
  title: "Attention is all you need",
  authors: ["Vaswani, Ashish", "Shazeer, Noam", "Parmar, Niki"],
  year: 2017,
  venue: "Advances in Neural Information Processing Systems",
  altDois: ["10.48550/arXiv.1706.03762"],
  sourceTool: "doi",
  kind: "inproceedings",
};

/** RFC 9110. */
export const RFC9110: CitationInput = {
  doi: "10.17487/RFC9110",
  title: "HTTP Semantics",
  authors: ["Fielding, R.", "Nottingham, M.", "Reschke, J."],
  year: 2022,
  venue: "IETF",
  sourceTool: "ietf",
  kind: "rfc",
  rfcNumber: 9110,
  url: "https://www.rfc-editor.org/info/rfc9110",
};

/** A repository without a DOI. */
export const REPO: CitationInput = {
  doi: "github:denoland/deno",
  title: "Deno: a modern runtime for JavaScript & TypeScript",
  authors: ["Deno Land"],
  year: 2024,
  sourceTool: "github",
  kind: "software",
};

/** A retracted paper (the Lancet hydroxychloroquine study). */
export const RETRACTED: CitationInput = {
  doi: "10.1016/S0140-6736(20)31180-6",
  title: "Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19",
  authors: ["Mehra, Mandeep R"],
  year: 2020,
  venue: "The Lancet",
  sourceTool: "doi",
  kind: "article",
  retraction: {
    kind: "retraction",
    noticeDoi: "10.1016/S0140-6736(20)31324-6",
    date: "2020-06-05",
    source: "retraction-watch",
  },
};
