/**
 * The browser step of the authorization code flow, pluggable: the CLI opens the system browser (or prints the
 * URL) and receives the redirect on a loopback listener (RFC 8252 §7.3); tests and headless hosts follow the
 * URL over HTTP. The provider checks every URL with `assertOpenableUrl` before it gets here.
 */
import { spawn } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizationError } from './errors.js';
import { assertOpenableUrl } from './network.js';

export interface AuthorizationUserAgent {
  /** The redirect URI to register and to send in the authorization request. */
  readonly redirectUri: string;
  /** Shows the authorization URL to the user; resolves with the URL the authorization server redirected to. */
  authorize(authorizationUrl: URL, signal?: AbortSignal): Promise<URL>;
}

const MAX_HOPS = 5;

/**
 * Follows the authorization URL with HTTP GETs (no cookies, no forms) until the authorization server redirects
 * to `redirectUri`: for authorization servers that approve without a user (test harnesses, conformance).
 */
export function headlessUserAgent(
  options: { redirectUri?: string; fetch?: typeof fetch } = {},
): AuthorizationUserAgent {
  const redirectUri = options.redirectUri ?? 'http://localhost:3000/callback';
  const fetchFn = options.fetch ?? fetch;
  return {
    redirectUri,
    async authorize(authorizationUrl, signal) {
      let url = assertOpenableUrl(authorizationUrl);
      for (let hop = 0; hop < MAX_HOPS; hop++) {
        const response = await fetchFn(url, { redirect: 'manual', ...(signal ? { signal } : {}) });
        await response.body?.cancel().catch(() => {});
        const location = response.headers.get('location');
        if (!location || response.status < 300 || response.status >= 400)
          throw new AuthorizationError(
            'authorization_failed',
            `the authorization endpoint answered ${response.status}`,
          );
        const next = new URL(location, url);
        if (`${next.origin}${next.pathname}` === new URL(redirectUri).href.replace(/[?#].*$/, ''))
          return next;
        url = assertOpenableUrl(next);
      }
      throw new AuthorizationError(
        'authorization_failed',
        'too many redirects from the authorization endpoint',
      );
    },
  };
}

/** The command that opens a URL in the user's browser, as a program and arguments (never a shell line). */
export function browserCommand(platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler']];
  return ['xdg-open', []];
}

/** Opens a checked URL in the system browser: spawn without a shell, the URL a single argument. */
export function openInBrowser(url: URL): void {
  const safe = assertOpenableUrl(url);
  const [command, args] = browserCommand();
  const child = spawn(command, [...args, safe.href], { shell: false, stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

export interface LoopbackUserAgentOptions {
  /** Port of the redirect listener on 127.0.0.1 (default: any free port). */
  port?: number;
  /** Called with the URL to show: the default opens the system browser. */
  open?: (url: URL) => void;
  /** How long to wait for the redirect (default 5 minutes). */
  timeoutMs?: number;
}

/**
 * RFC 8252 §7.3: a listener on 127.0.0.1 receives the redirect. `start` binds it first, so the redirect URI
 * (with its port) is known before registration. Close it when done.
 */
export class LoopbackUserAgent implements AuthorizationUserAgent {
  readonly redirectUri: string;
  readonly #server: Server;
  readonly #options: LoopbackUserAgentOptions;
  #pending: ((url: URL) => void) | undefined;

  private constructor(server: Server, options: LoopbackUserAgentOptions) {
    this.#server = server;
    this.#options = options;
    const { port } = server.address() as AddressInfo;
    this.redirectUri = `http://127.0.0.1:${port}/callback`;
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', this.redirectUri);
      if (url.pathname !== '/callback' || !this.#pending) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Authorization complete. You can close this window.\n');
      this.#pending(url);
      this.#pending = undefined;
    });
  }

  static async start(options: LoopbackUserAgentOptions = {}): Promise<LoopbackUserAgent> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return new LoopbackUserAgent(server, options);
  }

  authorize(authorizationUrl: URL, signal?: AbortSignal): Promise<URL> {
    const url = assertOpenableUrl(authorizationUrl);
    const timeoutMs = this.#options.timeoutMs ?? 300_000;
    return new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending = undefined;
        reject(new AuthorizationError('authorization_failed', 'no redirect from the browser in time'));
      }, timeoutMs);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
      this.#pending = (callback) => {
        clearTimeout(timer);
        resolve(callback);
      };
      (this.#options.open ?? openInBrowser)(url);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
