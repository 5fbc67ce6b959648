/** Type tests: outputSchema types structuredContent; argsSchema types prompt args (checked by tsc). */
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { McpServer, type ToolConfig } from '../../src/server/index.js';

const server = new McpServer({ name: 'types', version: '1' });
const content = [{ type: 'text' as const, text: '' }];

describe('outputSchema types structuredContent', () => {
  it('zod 4: the schema input type is what the handler must return', () => {
    server.registerTool('forecast', { outputSchema: z.object({ celsius: z.number() }) }, () => ({
      content,
      structuredContent: { celsius: 21 },
    }));
    server.registerTool('forecast_wrong', { outputSchema: z.object({ celsius: z.number() }) }, () => ({
      content,
      // @ts-expect-error celsius is a number
      structuredContent: { celsius: 'warm' },
    }));
  });

  it('JSON Schema literal: required structuredContent, except on an error result', () => {
    const outputSchema = {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
      additionalProperties: false,
    } as const;
    server.registerTool('sum', { outputSchema }, () => ({ content, structuredContent: { sum: 3 } }));
    server.registerTool('sum_failed', { outputSchema }, () => ({ content, isError: true }));
    // @ts-expect-error structuredContent is required when there is an outputSchema
    server.registerTool('sum_missing', { outputSchema }, () => ({ content }));
    server.registerTool('sum_wrong', { outputSchema }, () => ({
      content,
      // @ts-expect-error sum is a number
      structuredContent: { sum: '3' },
    }));
  });

  it('inline JSON Schema literal with arrays: a handler returns plain (mutable) arrays', () => {
    server.registerTool(
      'tags',
      {
        inputSchema: { type: 'object', properties: { prefix: { type: 'string' } } },
        outputSchema: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } } },
          required: ['tags'],
        },
      },
      () => ({ content, structuredContent: { tags: ['a', 'b'] } }),
    );
    server.registerTool('tags_zod', { outputSchema: z.object({ tags: z.array(z.string()) }) }, () => ({
      content,
      structuredContent: { tags: ['a'] },
    }));
    server.registerTool(
      'tags_args',
      { outputSchema: { type: 'array', items: { type: 'number' } } },
      async (args) => ({ content, structuredContent: [Object.keys(args).length] }),
    );
  });

  it('valibot, async handler', () => {
    server.registerTool('names', { outputSchema: v.array(v.string()) }, async () => ({
      content,
      structuredContent: ['ada'],
    }));
    // @ts-expect-error the array holds strings
    server.registerTool('names_wrong', { outputSchema: v.array(v.string()) }, async () => ({
      content,
      structuredContent: [1],
    }));
  });

  it('no outputSchema: structuredContent is free', () => {
    server.registerTool('free', {}, () => ({ content, structuredContent: { anything: true } }));
  });

  it('a config typed ToolConfig (schemas unknown to the compiler): loose args and result', () => {
    const config: ToolConfig = { description: 'built elsewhere' };
    server.registerTool('loose', config, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return { content };
    });
  });
});

describe('prompt args', () => {
  it('argsSchema (zod 4) types args', () => {
    server.registerPrompt(
      'greet',
      { argsSchema: z.object({ name: z.string(), tone: z.string().optional() }) },
      (args) => {
        expectTypeOf(args).not.toBeAny();
        expectTypeOf(args).toEqualTypeOf<{ name: string; tone?: string | undefined }>();
        // @ts-expect-error name is a string
        const wrong: number = args.name;
        return {
          messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.name} ${wrong}` } }],
        };
      },
    );
  });

  it('argsSchema (JSON Schema literal) types args', () => {
    server.registerPrompt(
      'review',
      {
        argsSchema: {
          type: 'object',
          properties: { code: { type: 'string' } },
          required: ['code'],
          additionalProperties: false,
        },
      },
      ({ code }) => {
        expectTypeOf(code).toEqualTypeOf<string>();
        return { messages: [{ role: 'user', content: { type: 'text', text: code } }] };
      },
    );
  });

  it('no argsSchema: the strings prompts/get carries', () => {
    server.registerPrompt('plain', { arguments: [{ name: 'topic' }] }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, string>>();
      return { messages: [] };
    });
  });
});
