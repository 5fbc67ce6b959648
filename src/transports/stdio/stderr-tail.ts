/** Keeps the last lines of a child's stderr (bounded) for error messages, and splits it into lines for logs. */
export class StderrTail {
  readonly #maxLines: number;
  readonly #maxLineLength: number;
  #lines: string[] = [];
  #partial = '';

  constructor(maxLines = 20, maxLineLength = 1000) {
    this.#maxLines = maxLines;
    this.#maxLineLength = maxLineLength;
  }

  /** Adds a chunk; returns the complete lines it finished. */
  push(chunk: Buffer): string[] {
    const text = this.#partial + chunk.toString('utf8');
    const parts = text.split('\n');
    this.#partial = (parts.pop() ?? '').slice(-this.#maxLineLength);
    const lines = parts
      .map((line) => line.replace(/\r$/, '').slice(0, this.#maxLineLength))
      .filter((l) => l !== '');
    this.#lines.push(...lines);
    if (this.#lines.length > this.#maxLines) this.#lines.splice(0, this.#lines.length - this.#maxLines);
    return lines;
  }

  text(): string {
    const lines = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return lines.slice(-this.#maxLines).join('\n');
  }
}
