/** `text` cut to `max` characters, marked with an ellipsis: a hostile peer's megabytes are not reflected back. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
