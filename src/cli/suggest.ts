/** "Did you mean": the closest known word by edit distance, for mistyped commands, flags and tool names. */

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `rnu` is one edit from `run`, as a
 * typist sees it. Three rows; the words here are short (flags, commands, tool names).
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate nearest to `word`, when it is near enough to be a typo (at most a third of the word's length,
 * at least 1, at most 3 edits), or one that contains the word (`weather` for `weather__get_weather`).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of list) {
    // Long peer-supplied names are not worth a quadratic comparison.
    if (Math.abs(candidate.length - word.length) > limit && !candidate.includes(word)) continue;
    const distance = candidate.length > 256 ? Number.POSITIVE_INFINITY : editDistance(word, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== undefined && bestDistance <= limit) return best;
  if (word.length < 3) return undefined;
  for (const candidate of list) if (candidate.includes(word)) return candidate;
  return undefined;
}

/** `; did you mean "x"?`, or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
