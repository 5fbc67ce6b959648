/**
 * The one plain-object check: a non-null object that is not an array, so its keys can be read. Values from a
 * peer, a config file or a model are `unknown` until they pass it.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
