/**
 * Icons from a server are untrusted input (2025-11-25 basic/index, Icons: Security considerations). The
 * client keeps only icons an application can render safely: an `https:` URL or a `data:` URI of an allowed
 * image type, and for SVG one with no scripts, event handlers, foreign objects or external references.
 * `fetchIcon` is the one safe way to fetch an icon's bytes: https only, no credentials, no redirect to
 * another origin, the server's own origin unless told otherwise, a size cap, and the type checked by its
 * magic bytes, never taken from the server's word.
 */
import type { Icon } from '../mcp/types.js';
import { collectBody, nodeHttps } from '../transports/http/client/node-http.js';
import { isRecord } from '../util/record.js';

/** Image types an application can be handed; everything else is dropped. */
const ALLOWED_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/webp',
  'image/gif',
  'image/svg+xml',
]);
const MAX_DATA_URI_BYTES = 512 * 1024;
const DEFAULT_MAX_ICON_BYTES = 1024 * 1024;
const MAX_ICONS = 32;

/**
 * The icons that pass the checks, or undefined when none does; anything that is not an icon list is dropped
 * whole. `data:` URIs are decoded and checked here; `https:` URLs are checked when fetched.
 */
export function safeIcons(icons: unknown): Icon[] | undefined {
  if (!Array.isArray(icons)) return undefined;
  const kept: Icon[] = [];
  for (const icon of icons.slice(0, MAX_ICONS)) {
    if (isSafeIcon(icon)) kept.push(icon);
  }
  return kept.length > 0 ? kept : undefined;
}

function isSafeIcon(icon: unknown): icon is Icon {
  if (!isRecord(icon)) return false;
  const { src, mimeType } = icon;
  if (typeof src !== 'string') return false;
  if (mimeType !== undefined && (typeof mimeType !== 'string' || !ALLOWED_TYPES.has(mimeType.toLowerCase())))
    return false;
  if (src.startsWith('data:')) return decodeDataUri(src) !== undefined;
  try {
    const url = new URL(src);
    return url.protocol === 'https:' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export interface IconBytes {
  /** Detected from the content, not from the server's claim. */
  readonly mimeType: string;
  readonly bytes: Buffer;
}

/** A data: URI's image, checked like fetched bytes; undefined when it is not a safe image. */
function decodeDataUri(src: string): IconBytes | undefined {
  const match = /^data:([a-z0-9.+/-]+)(;[^,]*)?,(.*)$/is.exec(src);
  if (!match || src.length > MAX_DATA_URI_BYTES * 1.4) return undefined;
  const declared = match[1]!.toLowerCase();
  const base64 = /;base64$/i.test(match[2] ?? '');
  const bytes = base64
    ? Buffer.from(match[3]!, 'base64')
    : Buffer.from(decodeURIComponent(match[3]!), 'utf8');
  return checkImage(bytes, declared);
}

/** The image's type by its magic bytes, if it is allowed, agrees with `declared` and (for SVG) is inert. */
export function checkImage(bytes: Buffer, declared?: string): IconBytes | undefined {
  const detected = sniff(bytes);
  if (!detected) return undefined;
  if (declared !== undefined) {
    const normal = declared === 'image/jpg' ? 'image/jpeg' : declared.split(';')[0]!.trim();
    if (normal !== detected) return undefined;
  }
  if (detected === 'image/svg+xml' && !isInertSvg(bytes.toString('utf8'))) return undefined;
  return { mimeType: detected, bytes };
}

function sniff(bytes: Buffer): string | undefined {
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  const head = bytes.subarray(0, 512).toString('utf8').trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return undefined;
}

/**
 * Refuses an SVG that can run or load anything: scripts, event handler attributes, `javascript:` URLs,
 * foreign objects (embedded HTML), and references outside the document (`href` to anything but `#...` or
 * an image data: URI). Refused, not stripped: a stripped SVG is a document the server did not send.
 */
function isInertSvg(text: string): boolean {
  if (/<script[\s>/]/i.test(text)) return false;
  if (/<foreignObject[\s>/]/i.test(text)) return false;
  if (/\son[a-z]+\s*=/i.test(text)) return false;
  if (/javascript:/i.test(text)) return false;
  if (/<!ENTITY/i.test(text)) return false;
  for (const match of text.matchAll(/(?:xlink:)?href\s*=\s*["']([^"']*)["']/gi)) {
    const target = match[1]!.trim();
    if (!target.startsWith('#') && !/^data:image\/(png|jpeg|gif|webp);/i.test(target)) return false;
  }
  if (/url\(\s*["']?(?!#)/i.test(text)) return false;
  return true;
}

export interface FetchIconOptions {
  /** The MCP server's URL: the icon must come from its origin unless `allowOtherOrigins`. */
  readonly serverUrl?: string | URL;
  readonly allowOtherOrigins?: boolean;
  /** Cap on the icon's size (default 1 MiB). */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Extra trusted CA certificates (PEM), for a server with a private CA. */
  readonly ca?: string | Buffer;
}

/** Fetches and checks one icon; rejects with a message saying why an icon is refused. */
export async function fetchIcon(icon: Icon, options: FetchIconOptions = {}): Promise<IconBytes> {
  if (icon.src.startsWith('data:')) {
    const decoded = decodeDataUri(icon.src);
    if (!decoded) throw new Error('icon refused: the data: URI is not an allowed, inert image');
    return decoded;
  }
  const url = iconUrl(icon.src, options);
  const bytes = await download(url, options);
  const checked = checkImage(bytes, icon.mimeType);
  if (!checked)
    throw new Error(`icon refused: ${url.origin} sent content that is not an allowed, inert image`);
  return checked;
}

function iconUrl(src: string, options: FetchIconOptions): URL {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    throw new Error('icon refused: src is not a URL');
  }
  if (url.protocol !== 'https:') throw new Error(`icon refused: ${url.protocol} icons are never fetched`);
  if (url.username !== '' || url.password !== '') throw new Error('icon refused: credentials in the URL');
  if (options.serverUrl !== undefined && !options.allowOtherOrigins) {
    const server = new URL(options.serverUrl);
    if (server.origin !== url.origin)
      throw new Error(`icon refused: ${url.origin} is not the server's origin`);
  }
  return url;
}

/** One GET with no cookies, no Authorization and no redirects followed (a redirect is refused). */
function download(url: URL, options: FetchIconOptions): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ICON_BYTES;
  return new Promise((resolve, reject) => {
    const req = nodeHttps().request(url, {
      method: 'GET',
      headers: { accept: [...ALLOWED_TYPES].join(', ') },
      timeout: options.timeoutMs ?? 10_000,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    req.once('timeout', () => req.destroy(new Error('icon refused: no answer in time')));
    req.once('error', reject);
    req.once('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        response.resume();
        const why = status >= 300 && status < 400 ? 'redirects are not followed' : `HTTP ${status}`;
        reject(new Error(`icon refused: ${why}`));
        return;
      }
      collectBody(
        response,
        maxBytes,
        (max) => new Error(`icon refused: larger than ${max} bytes`),
        (body) => body,
      ).then(resolve, reject);
    });
    req.end();
  });
}

/** `item` with only its safe icons (the same object when it has none to filter). */
export function withSafeIcons<T>(item: T): T {
  if (!isRecord(item) || !('icons' in item)) return item;
  const { icons, ...rest } = item as T & { icons: unknown };
  const kept = safeIcons(icons);
  return (kept === undefined ? rest : { ...rest, icons: kept }) as T;
}

/** A list page with each item's icons filtered; `field` names the list (`tools`, `resources`, ...). */
export function pageWithSafeIcons<R extends Record<string, unknown>>(page: R, field: string): R {
  const items = page[field];
  if (!Array.isArray(items) || !items.some((item) => isRecord(item) && 'icons' in item)) return page;
  return { ...page, [field]: items.map(withSafeIcons) };
}
