/**
 * Fits the weights of the token estimate (lib/content/tokens/count.ts) to o200k
 * counts of the calibration corpus (bench/token_corpus.ts), in two steps:
 *
 * 1. words of the alphabetic scripts other than Latin (Cyrillic, Greek,
 *    Arabic and Hebrew, the other letters): o200k splits text into words
 *    (a letter run with its leading space) before it merges bytes, so each
 *    word's cost is its own; a line `a + b * length` is fitted per script on
 *    the corpus's words, each counted alone with a leading space;
 * 2. the other weights: non-negative least squares on the relative error of
 *    whole pieces, with the word costs of step 1 held fixed, each group
 *    weighted alike so that no script or page kind dominates.
 * Prints the weights to paste into WEIGHTS,
 * and the median estimate/real ratio per group with the fitted weights.
 *
 *     PARKOUR_SHARED_DIR=/work/shared deno run -A bench/token_calibration.ts
 */
import {
  countTokens,
  FEATURE_COUNT,
  FEATURE_NAMES,
  tokenFeatures,
  weighFeatures,
} from "../lib/content/tokens/count.ts";
import { calibrationCorpus } from "./token_corpus.ts";

const samples = await calibrationCorpus();
const rows: { group: string; f: Float64Array; real: number }[] = [];
for (const s of samples) {
  const real = await countTokens(s.text);
  if (real < 20) continue;
  rows.push({ group: s.group, f: tokenFeatures(s.text, new Float64Array(FEATURE_COUNT)), real });
}
// Step 1: word costs of the scripts whose words o200k sees one by one.
const WORD_SCRIPTS: { runs: number; chars: number; pattern: RegExp }[] = [
  { runs: 9, chars: 10, pattern: /[\u0400-\u052f]+/g },
  { runs: 11, chars: 12, pattern: /[\u0370-\u03ff\u1f00-\u1fff]+/g },
  { runs: 13, chars: 14, pattern: /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]+/g },
  { runs: 18, chars: 19, pattern: /[\u0900-\u0dff\u0e00-\u0fff]+/g },
];
const fixed = new Map<number, number>();
const wordCost = new Map<string, number>();
for (const script of WORD_SCRIPTS) {
  // Least squares of tokens on [1, length] over word occurrences.
  let n0 = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
  for (const s of samples) {
    for (const w of s.text.match(script.pattern) ?? []) {
      let y = wordCost.get(w);
      if (y === undefined) {
        y = await countTokens(" " + w);
        wordCost.set(w, y);
      }
      n0++;
      sx += w.length;
      sxx += w.length * w.length;
      sy += y;
      sxy += w.length * y;
    }
  }
  if (n0 < 50) continue;
  const b = (n0 * sxy - sx * sy) / (n0 * sxx - sx * sx);
  const a = (sy - b * sx) / n0;
  fixed.set(script.runs, Math.max(0, a));
  fixed.set(script.chars, Math.max(0, b));
}

const perGroup = new Map<string, number>();
for (const r of rows) perGroup.set(r.group, (perGroup.get(r.group) ?? 0) + 1);

// Normal equations of  sum_i w_i (f_i . x / real_i - 1)^2,  w_i = 1 / rows in its group.
const n = FEATURE_COUNT;
const g = new Float64Array(n * n);
const h = new Float64Array(n);
for (const r of rows) {
  const w = 1 / perGroup.get(r.group)!;
  let known = 0;
  for (const [f, v] of fixed) known += r.f[f] * v;
  const target = 1 - known / r.real;
  for (let a = 0; a < n; a++) {
    if (fixed.has(a)) continue;
    const fa = r.f[a] / r.real;
    if (fa === 0) continue;
    h[a] += w * fa * target;
    for (let b = 0; b < n; b++) {
      if (!fixed.has(b)) g[a * n + b] += w * fa * (r.f[b] / r.real);
    }
  }
}
// Cyclic coordinate descent with x >= 0 (a feature never makes text cheaper).
const x = new Float64Array(n).fill(0.5);
for (const [f, v] of fixed) x[f] = v;
for (let iter = 0; iter < 20000; iter++) {
  let moved = 0;
  for (let a = 0; a < n; a++) {
    if (fixed.has(a)) continue;
    if (g[a * n + a] === 0) {
      x[a] = 0;
      continue;
    }
    let grad = -h[a];
    for (let b = 0; b < n; b++) if (!fixed.has(b)) grad += g[a * n + b] * x[b];
    const next = Math.max(0, x[a] - grad / g[a * n + a]);
    moved = Math.max(moved, Math.abs(next - x[a]));
    x[a] = next;
  }
  if (moved < 1e-9) break;
}
const rounded = new Float64Array([...x].map((v) => Math.round(v * 1000) / 1000));

console.log("const WEIGHTS = new Float64Array([");
for (let a = 0; a < n; a++) console.log(`  ${rounded[a]}, // ${FEATURE_NAMES[a]}`);
console.log("]);\n");

const median = (v: number[]) => {
  const s = [...v].sort((p, q) => p - q);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};
console.log("group      rows  median est/real (fitted)  p10   p90");
for (const group of [...perGroup.keys()].sort()) {
  const ratios = rows.filter((r) => r.group === group).map((r) =>
    weighFeatures(r.f, rounded) / r.real
  ).sort((p, q) => p - q);
  const at = (q: number) => ratios[Math.floor(q * (ratios.length - 1))].toFixed(3);
  console.log(
    `${group.padEnd(10)} ${String(ratios.length).padStart(4)}  ${
      median(ratios).toFixed(3).padStart(8)
    }                  ${at(0.1)} ${at(0.9)}`,
  );
}
