/**
 * Made-up HTML pages of any size, for the memory benchmarks: headings with
 * ids (nested three deep), paragraphs over a vocabulary that grows with the
 * page (so the search and question indexes hold realistic postings), lists,
 * a table and a code block per chapter, and page furniture around the
 * article. Deterministic for a seed; no shared data needed.
 *
 * @module
 */

/** A small deterministic generator (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  "ka",
  "ro",
  "mi",
  "te",
  "lu",
  "sa",
  "no",
  "vi",
  "de",
  "pa",
  "shi",
  "gor",
  "un",
  "el",
];

function word(rand: () => number, vocabulary: number): string {
  // Zipf-like: low ranks are common, the tail grows with the vocabulary.
  const rank = Math.floor(Math.pow(rand(), 2.2) * vocabulary);
  let n = rank + 1;
  let w = "";
  while (n > 0) {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return w;
}

function sentence(rand: () => number, vocabulary: number): string {
  const n = 6 + Math.floor(rand() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(word(rand, vocabulary));
  const s = words.join(" ");
  return s[0].toUpperCase() + s.slice(1) + ".";
}

/** An HTML page of about `bytes` bytes (within a few KB), deterministic for `seed`. */
export function sizedPage(bytes: number, seed = 1): string {
  const rand = prng(seed);
  const vocabulary = Math.max(200, Math.round(Math.sqrt(bytes) * 4));
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${seed} of ${bytes} bytes</title></head><body>
<nav class="menu"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li><li><a href="/blog">Blog</a></li></ul></nav>
<main><article><h1>Handbook ${seed}</h1>\n`;
  const tail =
    `</article></main><footer class="footer"><p>Copyright ${seed}. <a href="/privacy">Privacy</a></p></footer></body></html>\n`;
  const parts: string[] = [head];
  let size = head.length + tail.length;
  let chapter = 0;
  while (size < bytes) {
    chapter++;
    const chunk: string[] = [
      `<h2 id="ch-${chapter}">Chapter ${chapter}: ${word(rand, vocabulary)}</h2>`,
    ];
    const sections = 1 + Math.floor(rand() * 4);
    for (let s = 1; s <= sections; s++) {
      chunk.push(`<h3 id="ch-${chapter}-${s}">${sentence(rand, vocabulary).slice(0, 40)}</h3>`);
      const paragraphs = 1 + Math.floor(rand() * 4);
      for (let p = 0; p < paragraphs; p++) {
        const n = 2 + Math.floor(rand() * 5);
        const text: string[] = [];
        for (let k = 0; k < n; k++) text.push(sentence(rand, vocabulary));
        chunk.push(
          `<p>${text.join(" ")} See <a href="#ch-${
            1 + Math.floor(rand() * chapter)
          }">chapter</a> and <code>${word(rand, vocabulary)}()</code>.</p>`,
        );
      }
      if (rand() < 0.4) {
        chunk.push(
          `<h4 id="ch-${chapter}-${s}-x">Example</h4><ul>${
            Array.from({ length: 3 + Math.floor(rand() * 4) }, () =>
              `<li>${sentence(rand, vocabulary)}</li>`).join("")
          }</ul>`,
        );
      }
    }
    if (rand() < 0.5) {
      const rows = Array.from(
        { length: 4 + Math.floor(rand() * 6) },
        (_, r) =>
          `<tr><td>${r}</td><td>${word(rand, vocabulary)}</td><td>${
            sentence(rand, vocabulary)
          }</td></tr>`,
      ).join("");
      chunk.push(
        `<table><thead><tr><th>#</th><th>Name</th><th>Meaning</th></tr></thead><tbody>${rows}</tbody></table>`,
      );
    }
    if (rand() < 0.3) {
      chunk.push(
        `<pre><code class="language-js">function ${word(rand, vocabulary)}(x) {\n  return x + ${
          Math.floor(rand() * 100)
        };\n}\n</code></pre>`,
      );
    }
    const text = chunk.join("\n") + "\n";
    parts.push(text);
    size += text.length;
  }
  parts.push(tail);
  return parts.join("");
}
