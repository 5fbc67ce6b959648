/**
 * 2026-07-28 basic/transports/streamable-http: Custom Headers from Tool Parameters. The client learns each
 * tool's `x-mcp-header` declarations from tools/list, drops tools whose declarations are invalid, and mirrors
 * the designated argument values into `Mcp-Param-{Name}` headers on tools/call.
 */
import type { JSONRPCRequest } from '../jsonrpc/messages.js';
import type { Tool } from '../mcp/types.js';
import {
  type ParamHeader,
  encodeHeaderValue,
  headerStringOf,
  scanParamHeaders,
  valueAtPath,
} from '../transports/http/header-values.js';
import type { Logger } from '../util/logger.js';

export class ToolHeaderRegistry {
  readonly #headers = new Map<string, readonly ParamHeader[]>();
  #known = false;

  /** Whether a tools/list has been seen (so a call to an unknown tool can fetch one first). */
  get known(): boolean {
    return this.#known;
  }

  has(name: string): boolean {
    return this.#headers.has(name);
  }

  /** Keeps the valid tools of one page, remembering their header declarations; warns about the rest. */
  filter(tools: readonly Tool[], logger: Logger): Tool[] {
    const kept: Tool[] = [];
    for (const tool of tools) {
      const scan = scanParamHeaders(tool.inputSchema);
      if (!scan.ok) {
        logger.warn(`ignoring tool ${JSON.stringify(tool.name)}: invalid x-mcp-header (${scan.reason})`);
        this.#headers.delete(tool.name);
        continue;
      }
      this.#headers.set(tool.name, scan.headers);
      kept.push(tool);
    }
    this.#known = true;
    return kept;
  }

  clear(): void {
    this.#headers.clear();
    this.#known = false;
  }

  /** The `Mcp-Param-*` headers for an outgoing tools/call; absent or null values are omitted. */
  headersFor(message: JSONRPCRequest): Record<string, string> | undefined {
    if (message.method !== 'tools/call') return undefined;
    const name = message.params?.name;
    const declarations = typeof name === 'string' ? this.#headers.get(name) : undefined;
    if (!declarations || declarations.length === 0) return undefined;
    const args = message.params?.arguments;
    const headers: Record<string, string> = {};
    for (const declaration of declarations) {
      const text = headerStringOf(valueAtPath(args, declaration.path));
      if (text !== undefined)
        headers[`mcp-param-${declaration.name.toLowerCase()}`] = encodeHeaderValue(text);
    }
    return headers;
  }
}
