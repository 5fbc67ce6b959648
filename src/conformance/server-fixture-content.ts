/** Conformance fixture: content and utility tools, and the media they return (see server-fixture.ts). */
import { delay } from '../util/abort.js';
import type { HandlerContext, McpServer } from '../server/index.js';

// A 1x1 red PNG.
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A valid WAV file: 0.01 s of 8 kHz 8-bit mono silence. */
function silentWav(): string {
  const samples = 80;
  const buffer = Buffer.alloc(44 + samples, 0x80);
  buffer.write('RIFF', 0, 'ascii');
  buffer.writeUInt32LE(36 + samples, 4);
  buffer.write('WAVEfmt ', 8, 'ascii');
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20); // PCM
  buffer.writeUInt16LE(1, 22); // mono
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(8000, 28);
  buffer.writeUInt16LE(1, 32);
  buffer.writeUInt16LE(8, 34);
  buffer.write('data', 36, 'ascii');
  buffer.writeUInt32LE(samples, 40);
  return buffer.toString('base64');
}

export const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

export const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;

/** SEP-1613 / SEP-2106: the suite checks these keywords come back verbatim in tools/list. */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema if/then/else, not a thenable.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export function contentTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Returns simple text content' }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns image content' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }],
  }));
  const wav = silentWav();
  server.registerTool('test_audio_content', { description: 'Returns audio content' }, () => ({
    content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, image and resource' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );
}

export function schemaTools(server: McpServer): void {
  server.registerTool('test_error_handling', { description: 'Always fails' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: JSON_SCHEMA_2020_12,
    },
    (args) => text(`Received ${JSON.stringify(args)}`),
  );
  server.registerTool(
    'test_custom_header',
    {
      description: 'Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region', description: 'Deployment region' },
        },
        required: ['region'],
      },
    },
    ({ region }: { region: string }) => text(`region=${region}`),
  );
}

async function logThree(context: HandlerContext): Promise<void> {
  await context.log('info', 'Tool execution started');
  await delay(50, context.signal);
  await context.log('info', 'Tool processing data');
  await delay(50, context.signal);
  await context.log('info', 'Tool execution completed');
}

export function utilityTools(server: McpServer): void {
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100 of 100' },
    async (_a, context) => {
      for (const step of [0, 50, 100]) {
        await context.progress(step, 100, `step ${step}`);
        if (step < 100) await delay(50, context.signal);
      }
      return text('Progress test completed');
    },
  );
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info logs' },
    async (_a, context) => {
      await logThree(context);
      return text('Logging test completed');
    },
  );
  server.registerTool('test_logging_tool', { description: 'Sends three info logs' }, async (_a, context) => {
    await logThree(context);
    return text('Logging tool completed');
  });
  server.registerTool(
    'test_reconnection',
    { description: 'Closes the SSE stream mid-call (SEP-1699)' },
    async (_a, context) => {
      const close = context.extra?.closeSSEStream;
      if (typeof close === 'function') close();
      await delay(100, context.signal);
      return text('Reconnection test completed');
    },
  );
}
