import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../jsonrpc/messages.js';
import type { MessageExtra, Transport } from '../../jsonrpc/transport.js';

/**
 * Two linked in-process transports for unit-speed tests and embedding. Messages are cloned through JSON so
 * both sides see exactly what a wire would carry (no shared object identity).
 */
export class InMemoryTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  #peer: InMemoryTransport | undefined;
  #queue: unknown[] = [];
  #started = false;
  #closed = false;
  extra: MessageExtra | undefined;

  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  async start(): Promise<void> {
    this.#started = true;
    const queued = this.#queue;
    this.#queue = [];
    for (const message of queued) this.onmessage?.(message, this.extra);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const peer = this.#peer;
    if (this.#closed || !peer || peer.#closed)
      throw new LocalError('not_connected', 'in-memory peer is closed');
    const copy: unknown = JSON.parse(JSON.stringify(message));
    // Deliver on a microtask, as a real transport would deliver asynchronously.
    queueMicrotask(() => peer.#deliver(copy));
  }

  #deliver(message: unknown): void {
    if (this.#closed) return;
    if (this.#started) this.onmessage?.(message, this.extra);
    else this.#queue.push(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
    await this.#peer?.close();
  }
}
