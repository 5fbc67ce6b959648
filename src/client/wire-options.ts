/**
 * A codec's options with its `onfailure` added. Most calls pass one of a few shared option objects (the
 * client's defaults, with or without the input loop's `onresult`), so the last two mappings are kept: such a
 * call gets a shared copy and allocates no options of its own.
 */
import type { FailedRequest, Result } from '../jsonrpc/connection.js';
import type { WireRequestOptions } from './contracts.js';

export class WithFailure {
  readonly #onfailure: (error: unknown, failed: FailedRequest) => Promise<Result>;
  #key0: WireRequestOptions | undefined;
  #value0: WireRequestOptions = {};
  #key1: WireRequestOptions | undefined;
  #value1: WireRequestOptions = {};

  constructor(onfailure: (error: unknown, failed: FailedRequest) => Promise<Result>) {
    this.#onfailure = onfailure;
  }

  for(options: WireRequestOptions): WireRequestOptions {
    if (options === this.#key0) return this.#value0;
    if (options === this.#key1) return this.#value1;
    const value = { ...options, onfailure: this.#onfailure };
    this.#key1 = this.#key0;
    this.#value1 = this.#value0;
    this.#key0 = options;
    this.#value0 = value;
    return value;
  }
}
