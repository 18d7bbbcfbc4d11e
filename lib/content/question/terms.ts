/**
 * Questions in plain words, as terms to rank text with.
 *
 * Agents ask "how far can it go on a charge", not `range battery`. So a
 * question is split into words like the page is (see `words.ts`), function
 * words are dropped (articles, pronouns, auxiliaries, question words), and
 * both the question's words and the page's are reduced to a light stem, so
 * "charge", "charges", "charging" and "charged" meet, as do "indent",
 * "indented" and "indentation". The stemmer is deliberately small: it strips
 * common English inflections and a few derivational endings, and only from
 * words of Latin letters long enough to keep a root; it never needs to give
 * real words, only the same key for the forms of one word.
 *
 * @module
 */
import { grams, scan } from "../search/words.ts";
import { matchesOf } from "../../runtime/matches.ts";

/** Function words that carry no topic (English). */
const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before " +
    "being below between both but by can cannot could couldn did didn do does doesn doing don down " +
    "during each few for from further had hadn has hasn have haven having he her here hers herself " +
    "him himself his how i if in into is isn it its itself just let me more most my myself no nor " +
    "not now of off on once only or other ought our ours ourselves out over own same shall she " +
    "should shouldn so some such than that the their theirs them themselves then there these they " +
    "this those through to too under until up upon us very was wasn we were weren what when where " +
    "whether which while who whom whose why will with won would wouldn you your yours yourself " +
    "yourselves also anything something thing things get gets got getting use using used may " +
    "might must need needs tell know want s t ll re ve d m e g ie eg etc please"
  ).split(" "),
);

/** Whether `word` (lowercased) is a function word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

const VOWEL = /[aeiouy]/;

function undouble(stem: string): string {
  const n = stem.length;
  if (n >= 4 && stem[n - 1] === stem[n - 2] && !/[aeiouslz]/.test(stem[n - 1])) {
    return stem.slice(0, -1);
  }
  return stem;
}

const memo = new Map<string, string>();

/** Whether `word` is made of the letters a to z only. */
function lettersOnly(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * The light stem of a lowercased word. Words with anything but ASCII
 * letters, and short words, are their own stem: they are answered before
 * the memo, which holds stemmed words only (a page of numbers filled it
 * with its numbers, and looking up 460,000 of them took 3 s of a 16 MB
 * page's question index).
 */
export function stem(word: string): string {
  if (word.length < 4 || !lettersOnly(word)) return word;
  const known = memo.get(word);
  if (known !== undefined) return known;
  let w = word;
  // Plurals and third person.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w) && w.length > 3) w = w.slice(0, -1);
  // Derivational endings that keep the root (configuration, indentation).
  if (w.length > 7 && w.endsWith("ation")) w = w.slice(0, -5);
  else if (w.length > 6 && w.endsWith("ness")) w = w.slice(0, -4);
  // Participles and adverbs.
  if (w.length > 5 && w.endsWith("ing") && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith("ed") && VOWEL.test(w.slice(0, -2))) {
    w = undouble(w.slice(0, -2));
  } else if (w.length > 5 && w.endsWith("ly")) w = w.slice(0, -2);
  // y/i and a final e, so "policy"/"policies" and "charge"/"charging" meet.
  if (w.endsWith("y") && w.length > 3) w = w.slice(0, -1) + "i";
  else if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (memo.size < 200_000) memo.set(word, w);
  return w;
}

/** A word joined to another by `.`, `_`, `-`, `/` or `:`, or written in backticks. */
const IDENTIFIER = /[\p{L}\p{N}]+(?:[._\-/:]+[\p{L}\p{N}]+)+|`[^`]+`/gu;

/** Most terms a question may have (the rest are ignored). */
export const MAX_QUESTION_TERMS = 64;

/** The terms of a question. */
export interface QuestionTerms {
  /** Distinct stems to rank with, in question order. */
  terms: string[];
  /** True when every word was a function word and they were kept anyway. */
  onlyStopWords: boolean;
}

/**
 * The distinct stems of a question's content words (at most
 * {@link MAX_QUESTION_TERMS}). A question made only of function words keeps
 * them, so "The Who" still finds something.
 */
export function questionTerms(question: string): QuestionTerms {
  const all: string[] = [];
  const content: string[] = [];
  // Words inside identifiers (`Array.prototype.at`, `os.path`, `max-width`) are never function words.
  const code = new Set<string>();
  for (const m of matchesOf(IDENTIFIER, question)) scan(m[0], (w) => code.add(w));
  scan(question, (w) => {
    all.push(w);
    if (!STOP_WORDS.has(w) || code.has(w)) content.push(stem(w));
  }, (run) => {
    const chars = Array.from(run);
    if (chars.length === 1) content.push(run);
    else for (let i = 0; i + 1 < chars.length; i++) content.push(chars[i] + chars[i + 1]);
  });
  joinedTerms(question, (t) => content.push(t));
  const pick = content.length > 0 ? content : all;
  return {
    terms: [...new Set(pick)].slice(0, MAX_QUESTION_TERMS),
    onlyStopWords: content.length === 0 && all.length > 0,
  };
}

/** A name joined to a number by a hyphen: "SHA-512", "UTF-8", "P-256". */
const JOINED = /(?<![\p{L}\p{N}_-])(\p{L}{1,12})-(\d{1,6})(?![\p{L}\p{N}_]|-\p{N})/gu;

/**
 * Calls `onTerm` with the one-word form of each name joined to a number by
 * a hyphen in `text` ("sha512" for "SHA-512"), as pages and questions also
 * write it ("rsa-pss-sha512"), beside the two words its parts already are.
 */
export function joinedTerms(text: string, onTerm: (term: string) => void): void {
  if (!text.includes("-")) return;
  for (const m of matchesOf(JOINED, text)) onTerm((m[1] + m[2]).toLowerCase());
}

/** Calls `onTerm` with the stem of every word of `text` (and the grams of unspaced runs). */
export function scanTerms(text: string, onTerm: (term: string) => void): void {
  scan(text, (w) => onTerm(stem(w)), (run) => {
    for (const g of grams(run)) onTerm(g);
  });
  joinedTerms(text, onTerm);
}

const ASKS_FOR_CODE =
  /\b(?:examples?|code|snippet|syntax|command|how (?:do|can|should|would|to) (?:i |you |we )?(?:write|call|use|declare|run|install|import|format|create|define))\b/;

/**
 * Whether a question asks for code (an example, a snippet, the syntax, how
 * to write, call or run something) rather than for what the text states.
 */
export function asksForCode(question: string): boolean {
  return ASKS_FOR_CODE.test(question.toLowerCase());
}
