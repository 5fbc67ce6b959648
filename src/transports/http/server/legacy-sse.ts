import { LocalError } from '../../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../../jsonrpc/messages.js';
import { stringifyMessage } from '../../../jsonrpc/serialise.js';
import type { MessageExtra, Transport } from '../../../jsonrpc/transport.js';
import type { SseSink } from './exchange.js';
import { SSE_KEEPALIVE, sseMessage } from './wire.js';

/**
 * The 2024-11-05 HTTP+SSE transport (basic/transports, deprecated since 2025-03-26, kept for very old clients):
 * one long-lived SSE stream per session carries every server message; the client POSTs its messages to the URL
 * announced in the first `endpoint` event.
 */
export class LegacySseTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onended?: () => void;
  readonly sessionId: string;
  lastActivity = Date.now();
  readonly #sink: SseSink;
  #keepAlive: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(sessionId: string, sink: SseSink, keepAliveMs: number) {
    this.sessionId = sessionId;
    this.#sink = sink;
    sink.onclose = () => void this.close();
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), keepAliveMs);
      this.#keepAlive.unref?.();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The stream is the session: while it is open the session is in use. */
  get busy(): boolean {
    return !this.#closed;
  }

  async start(): Promise<void> {}

  /** The first event: where to POST messages (sent once the server is connected, so no POST finds it deaf). */
  announce(endpoint: string): void {
    this.#sink.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  }

  deliver(message: unknown, extra: MessageExtra): void {
    this.lastActivity = Date.now();
    this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new LocalError('connection_closed', 'SSE stream is closed');
    this.#sink.write(sseMessage(stringifyMessage(message)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#sink.end();
    this.onended?.();
    this.onclose?.();
  }
}
