/**
 * What kind of answer a question asks for, and which passages have that
 * shape.
 *
 * Keyword ranking finds the section a question is about, but inside a long
 * section the sentence that answers often shares few words with the
 * question: "what does join use if I don't pass a separator" is answered by
 * "If no separator is provided, a single comma is used", "how big is a
 * canvas" by "defaults to 300". What the two do share is the **shape** of
 * the answer, which the question announces by its form: a question about a
 * default is answered by a sentence about what happens when something is
 * left out; "how many" by a number; "what error" by a thrown error; "why"
 * by a reason. These are the answer types of factoid question answering,
 * written here for the language of specifications and reference manuals.
 *
 * {@link answerShapes} reads a question's intents; {@link shapeMatches}
 * tells which of them a passage's text gives (its prose only: link targets
 * and list markers are full of digits). When the units of a section, or the
 * candidates of the passage stage, are weighed in `extract.ts`, a unit
 * giving a shape the question asks for counts more (`SHAPE_WEIGHT`), by the
 * shape's rarity among the candidates: a number in a table of numbers tells
 * nothing. The ranking of sections is left to the words, and a unit holding
 * none of the question's words is not raised: the shape chooses among the
 * passages of the right sections, it never finds a section.
 *
 * @module
 */

/** One kind of answer: how a question asks for it, and how a passage gives it. */
interface Shape {
  /** The intent's name (for tests and reports). */
  name: string;
  /** Matches a question that asks for this kind of answer. */
  asks: RegExp;
  /** Matches a passage that gives this kind of answer. */
  gives: RegExp;
}

const NUMBER_WORDS =
  "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|thousand|million|billion|zero|half";

const SHAPES: readonly Shape[] = [
  {
    // What happens when a value is not given.
    name: "default",
    asks:
      /\b(defaults?|by default|(don't|do not|doesn't|does not|didn't|never) (give|pass|set|specify|provide|supply|include|add|use)|(isn't|is not|aren't|are not|wasn't|not) (set|given|passed|specified|provided|supplied|present|there)|(leave|leaving|left) (it |them |that |this )?(out|off|empty|blank|unset)|omit(ted|s|ting)?|missing|absent|without (a|an|any) \w+)\b/i,
    gives:
      /\b(defaults? to|default value|by default|is the default|the default( \w+)? (is|value)|\(default|initially( set)? to|is initially|initial value|missing value default|invalid value default|in the absence of|unless otherwise specified|(if|when) omitted|(is|are|was|were|be|is left) (omitted|absent|missing|unspecified|not (present|specified|provided|given|set|supplied|passed))|if no \w+( \w+)? (is|are|was|were) (provided|given|specified|present|supplied|passed))\b/i,
  },
  {
    // A quantity: a count, a size, a limit, a length of time.
    name: "quantity",
    asks:
      /\b(how (many|much|long|big|wide|tall|high|large|small|often|deep|deeply)|maximum|minimum|max|min|at most|at least|limits?|range|largest|smallest|biggest|longest|number of|size of)\b/i,
    gives: new RegExp(
      `(\\d|\\b(${NUMBER_WORDS}|no (limit|maximum|minimum|upper bound)|unlimited|limitless|any number of|arbitrar(y|ily) (many|large|long|deep))\\b)`,
      "i",
    ),
  },
  {
    // An error or exception raised.
    name: "error",
    asks: /\b(errors?|exceptions?|throws?|thrown|throwing|fails?|failure|reject(s|ed)?)\b/i,
    gives:
      /\b(throws?|thrown|throw an?|\w*Error|\w*Exception|exceptions?|abrupt completion|rejects?|rejected)\b/,
  },
  {
    // A reason.
    name: "reason",
    asks: /^\s*why\b|\bwhat is the (reason|point|purpose)\b/i,
    gives:
      /\b(because|in order to|so that|so as to|to (avoid|prevent|ensure|allow|protect|mitigate|reduce|limit)|reasons?|rationale|otherwise)\b/i,
  },
  {
    // A version, edition or date something came in.
    name: "version",
    asks:
      /\b(which|what) (edition|version|year|release|revision)\b|\bwhen (was|were|did) .*\b(add|added|introduc|come|came)/i,
    gives: /\b((19|20)\d\d|edition|version \d|introduced|added in)\b/i,
  },
];

/** How many intents the shape table holds (their indexes run from 0 to this, excluded). */
export const SHAPE_COUNT: number = SHAPES.length;

/** The intents a question announces, as indexes into the shape table. */
export function answerShapes(question: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < SHAPES.length; i++) if (SHAPES[i].asks.test(question)) out.push(i);
  return out;
}

/** The names of the intents a question announces. */
export function answerShapeNames(question: string): string[] {
  return answerShapes(question).map((i) => SHAPES[i].name);
}

/**
 * The passage's words without what is not its prose: link targets (URLs
 * and fragments are full of digits and names) and list markers.
 */
function prose(text: string): string {
  return text.replace(/\]\([^)\s]*\)/g, "]").replace(/^\s*(\d+[.)]|[-*+])\s+/gm, "");
}

/** Which of the intents `shapes` the passage `text` answers: a bit per intent, in order. */
export function shapeMatches(shapes: readonly number[], text: string): number {
  const words = prose(text);
  let bits = 0;
  for (let k = 0; k < shapes.length; k++) if (SHAPES[shapes[k]].gives.test(words)) bits |= 1 << k;
  return bits;
}

/** The nouns a page measures by, for the adjective of a "how ..." question. */
const DIMENSIONS: Record<string, readonly string[]> = {
  long: ["length", "time", "duration"],
  wide: ["width"],
  tall: ["height"],
  high: ["height"],
  deep: ["depth"],
  deeply: ["depth"],
  big: ["size"],
  large: ["size"],
  small: ["size"],
  many: ["number"],
  much: ["amount"],
  often: ["frequency", "interval"],
  far: ["distance"],
  old: ["age"],
  fast: ["speed", "rate"],
};

/**
 * The nouns a "how long / wide / many ..." question measures by ("how wide
 * is a textarea" asks for its width, "how long can an array be" for its
 * length), which the page writes where the question's adjective is absent.
 */
export function dimensionWords(question: string): string[] {
  const out: string[] = [];
  for (const m of question.toLowerCase().matchAll(/\bhow (\w+)/g)) {
    for (const w of DIMENSIONS[m[1]] ?? []) if (!out.includes(w)) out.push(w);
  }
  return out;
}
