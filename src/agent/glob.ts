/**
 * Glob patterns for tool names: `*` matches any run of characters (including none), `?` exactly one; every
 * other character is literal. Tool names carry no path separators, so there is no `**`.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** A compiled list of globs; an empty list matches nothing. */
export class GlobSet {
  readonly #patterns: readonly RegExp[];

  constructor(readonly globs: readonly string[]) {
    this.#patterns = globs.map(globToRegExp);
  }

  matches(name: string): boolean {
    return this.#patterns.some((pattern) => pattern.test(name));
  }

  get empty(): boolean {
    return this.#patterns.length === 0;
  }
}
