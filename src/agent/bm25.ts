/**
 * Okapi BM25 over small documents (a tool's name, title, description and parameter names), for tool
 * search. Fields are weighted by repeating their terms; names are split at `_`, `-`, `.`, `/` and camelCase
 * humps so `get_weather` and `getWeather` both index `get` and `weather`.
 */

const K1 = 1.2;
const B = 0.75;

/** Words that say nothing about what a tool does. */
const STOPWORDS = new Set(
  'a an and are as at be by for from has have in into is it its of on or that the this to was were will with you your'.split(
    ' ',
  ),
);

/** Lower-case terms of `text`, split at non-letters and camelCase humps, stop words and 1-letter terms dropped. */
export function terms(text: string): string[] {
  const out: string[] = [];
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** A light suffix strip, so `events`/`event` and `scheduling`/`schedule` meet; never below 3 letters. */
function stem(term: string): string {
  for (const [suffix, replacement] of [
    ['ies', 'y'],
    ['ing', ''],
    ['es', ''],
    ['ed', ''],
    ['s', ''],
  ] as const) {
    if (term.endsWith(suffix) && term.length - suffix.length + replacement.length >= 3)
      return term.slice(0, term.length - suffix.length) + replacement;
  }
  return term;
}

export interface Bm25Document {
  readonly id: string;
  /** Each field's text and how many times its terms count. */
  readonly fields: ReadonlyArray<{ readonly text: string; readonly weight: number }>;
  /**
   * The document's name: the share of its terms the query contains boosts the score (up to twice), so
   * `delete_file` beats `delete_climate_report` for "delete the file report.pdf" although "report" is the
   * rarer word.
   */
  readonly key?: string;
}

export class Bm25Index {
  readonly #ids: string[] = [];
  readonly #termCounts: Array<Map<string, number>> = [];
  readonly #lengths: number[] = [];
  readonly #keys: Array<readonly string[]> = [];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averageLength: number;

  constructor(documents: readonly Bm25Document[]) {
    let total = 0;
    for (const document of documents) {
      const counts = new Map<string, number>();
      let length = 0;
      for (const field of document.fields) {
        for (const term of terms(field.text)) {
          counts.set(term, (counts.get(term) ?? 0) + field.weight);
          length += field.weight;
        }
      }
      for (const term of counts.keys())
        this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      this.#ids.push(document.id);
      this.#keys.push([...new Set(terms(document.key ?? ''))]);
      this.#termCounts.push(counts);
      this.#lengths.push(length);
      total += length;
    }
    this.#averageLength = documents.length === 0 ? 1 : total / documents.length || 1;
  }

  /** The best `limit` documents for `query`, best first; documents sharing no term with it are left out. */
  search(query: string, limit: number): Array<{ id: string; score: number }> {
    const queryTerms = [...new Set(terms(query))];
    const n = this.#ids.length;
    const scored: Array<{ id: string; score: number; index: number }> = [];
    for (let index = 0; index < n; index++) {
      const counts = this.#termCounts[index]!;
      const norm = K1 * (1 - B + (B * this.#lengths[index]!) / this.#averageLength);
      let score = 0;
      for (const term of queryTerms) {
        const tf = counts.get(term);
        if (tf === undefined) continue;
        const df = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + norm);
      }
      if (score === 0) continue;
      const key = this.#keys[index]!;
      if (key.length > 0) score *= 1 + key.filter((term) => queryTerms.includes(term)).length / key.length;
      scored.push({ id: this.#ids[index]!, score, index });
    }
    // Ties keep registry order, so the same query always finds the same tools in the same order.
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, limit).map(({ id, score }) => ({ id, score }));
  }
}
