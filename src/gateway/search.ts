/** `search_tools` as a tool of the gateway (opt-in `toolSearch: true`): the host's BM25 tool search, per caller. */
import type { ToolDefinition } from '../agent/model.js';
import { SEARCH_TOOL_NAME, ToolSearch } from '../agent/tool-search.js';
import type { JSONObject } from '../mcp/types.js';
import type { McpServer } from '../server/server.js';
import type { HandlerContext } from '../server/types.js';

/** Registers `search_tools` on an endpoint; `tools` are the definitions the calling principal may use. */
export function offerToolSearch(
  server: McpServer,
  tools: (context: HandlerContext) => readonly ToolDefinition[],
): void {
  const search = new ToolSearch({ enabled: true });
  server.registerTool(
    SEARCH_TOOL_NAME,
    {
      description:
        'Search the tools of this gateway by what you need to do. Returns the best matching tools with their parameters.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'How many tools (default 5)' },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true },
    },
    async (args, context) => {
      const found = await search.search(tools(context), args, new Set(), context.signal);
      return {
        content: [{ type: 'text', text: found.text }],
        structuredContent: { tools: found.found.map((d) => ({ ...d })) as unknown as JSONObject[] },
        ...(found.isError ? { isError: true } : {}),
      };
    },
  );
}
