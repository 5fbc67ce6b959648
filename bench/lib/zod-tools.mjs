// The zod equivalents of bench/lib/tools.mjs schemas: the idiomatic way to declare tools with the
// official SDKs (v1 and v2 both take zod 4 objects).
import { z } from 'zod';
import { count, fillerDescription, fillerName, hold, release, textResult } from './tools.mjs';

export const zodEcho = () => z.object({ text: z.string() });

export const zodOrder = () =>
  z.object({
    user: z
      .object({
        name: z.string().min(1).max(100),
        email: z.string().regex(/^[^@\s]+@[^@\s]+$/),
        age: z.number().int().min(0).max(150).optional(),
      })
      .strict(),
    tags: z.array(z.string().max(32)).max(16).optional(),
    options: z
      .object({
        mode: z.enum(['fast', 'safe', 'thorough']),
        retries: z.number().int().min(0).max(10).optional(),
        verbose: z.boolean().optional(),
      })
      .optional(),
    items: z
      .array(z.object({ id: z.number().int(), qty: z.number().positive(), note: z.string().optional() }))
      .max(100),
  });

export const zodFiller = () =>
  z.object({
    a: z.string().describe('The primary input string for this tool.'),
    b: z.number().describe('An optional numeric knob.').optional(),
  });

// Schemas are built once per process and reused by every server instance, as an application defines its
// tools' schemas at module level (the SDKs' per-request factories then only register them).
let schemas;
function schemasFor(opts) {
  if (!schemas) {
    schemas = {
      echo: zodEcho(),
      order: zodOrder(),
      empty: z.object({}),
      count: z.object({ gc: z.boolean().optional() }),
      fillers: Array.from({ length: opts.tools }, zodFiller),
    };
  }
  return schemas;
}

// Registers the benchmark tool set on an official-SDK McpServer (v1 and v2 share registerTool's shape).
export function registerZodTools(server, opts) {
  const zs = schemasFor(opts);
  server.registerTool('echo', { description: 'Echo the text back', inputSchema: zs.echo }, async ({ text }) =>
    textResult(text),
  );
  if (!opts.minimal) {
    server.registerTool('order', { description: 'Validate an order', inputSchema: zs.order }, async (args) =>
      textResult(String(args.items.length)),
    );
    server.registerTool('hold', { description: 'Hold until released', inputSchema: zs.empty }, () => hold());
    server.registerTool('release', { description: 'Release held calls', inputSchema: zs.empty }, async () =>
      release(),
    );
    server.registerTool('count', { description: 'Count held calls', inputSchema: zs.count }, async (args) =>
      count(args),
    );
  }
  for (let i = 0; i < opts.tools; i++) {
    server.registerTool(
      fillerName(i),
      { description: fillerDescription(i), inputSchema: zs.fillers[i] },
      async (args) => textResult(args.a),
    );
  }
}
