/**
 * Type tests: checked by `npm run typecheck` (tsc over test/) and `npx vitest --typecheck.only`. Each
 * `@ts-expect-error` fails the check if inference regresses to `any` or to a type that accepts the misuse.
 */
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { McpServer, type ToolArgs } from '../../src/server/index.js';

const server = new McpServer({ name: 'types', version: '1' });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

describe('tool args from a Standard Schema', () => {
  it('zod 4: args is the schema output type', () => {
    server.registerTool(
      'zod',
      { inputSchema: z.object({ city: z.string(), days: z.number().optional() }) },
      (args) => {
        expectTypeOf(args).not.toBeAny();
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
        // @ts-expect-error city is a string
        const days: number = args.city;
        // @ts-expect-error no such argument
        args.country;
        return text(args.city + days);
      },
    );
  });

  it('zod 4: a transform gives the handler the validated (output) value', () => {
    server.registerTool(
      'zod_transform',
      { inputSchema: z.object({ count: z.string().transform((value) => Number(value)) }) },
      ({ count }) => {
        expectTypeOf(count).toEqualTypeOf<number>();
        return text(count.toFixed(0));
      },
    );
  });

  it('valibot: args is the schema output type', () => {
    server.registerTool(
      'valibot',
      { inputSchema: v.object({ city: v.string(), units: v.picklist(['c', 'f']) }) },
      (args) => {
        expectTypeOf(args).not.toBeAny();
        expectTypeOf(args).toEqualTypeOf<{ city: string; units: 'c' | 'f' }>();
        // @ts-expect-error city is a string
        const wrong: number = args.city;
        return text(`${args.city} ${args.units} ${wrong}`);
      },
    );
  });

  it('a handler that declares args as numbers does not compile', () => {
    server.registerTool(
      'mismatch',
      { inputSchema: z.object({ city: z.string() }) },
      // @ts-expect-error the schema gives city: string
      (args: { city: number }) => text(String(args.city)),
    );
  });
});

describe('tool args from a JSON Schema literal', () => {
  it('inline literal (no `as const` needed): the README example infers location: string', () => {
    server.registerTool(
      'get_weather',
      {
        description: 'Current weather for a city',
        inputSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
      async ({ location }, ctx) => {
        expectTypeOf(location).toEqualTypeOf<string>();
        await ctx.progress(1, 2, 'looking up');
        return text(`${location}: 26°C, sunny`);
      },
    );
  });

  it('`as const` schema in a variable: required, optional, closed object', () => {
    const inputSchema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        metric: { type: 'boolean' },
      },
      required: ['city'],
      additionalProperties: false,
    } as const;
    server.registerTool('weather', { inputSchema }, (args) => {
      expectTypeOf(args).not.toBeAny();
      expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number; metric?: boolean }>();
      // @ts-expect-error city is a string
      const wrong: number = args.city;
      // @ts-expect-error additionalProperties: false closes the object
      args.country;
      return text(`${args.city} ${wrong}`);
    });
  });

  it('open objects (additionalProperties absent or true) allow other names as unknown', () => {
    const inputSchema = { type: 'object', properties: { city: { type: 'string' } } } as const;
    server.registerTool('open', { inputSchema }, (args) => {
      expectTypeOf(args.city).toEqualTypeOf<string | undefined>();
      expectTypeOf(args.other).toEqualTypeOf<unknown>();
      return text('');
    });
  });

  it('a handler declaring city as a number does not compile', () => {
    const inputSchema = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    } as const;
    // @ts-expect-error the schema gives city: string
    server.registerTool('mismatch_json', { inputSchema }, (args: { city: number }) =>
      text(String(args.city)),
    );
  });

  it('a schema typed Record<string, unknown> (not a literal) gives Record<string, unknown>', () => {
    const inputSchema: Record<string, unknown> = { type: 'object', properties: { city: { type: 'string' } } };
    server.registerTool('plain', { inputSchema }, (args) => {
      expectTypeOf(args).not.toBeAny();
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      // @ts-expect-error unknown is not a string
      const city: string = args.city;
      return text(city);
    });
  });

  it('no inputSchema: Record<string, unknown>', () => {
    server.registerTool('none', {}, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return text('');
    });
  });

  it('ToolArgs of a widened (non-const) literal falls back, never any', () => {
    const widened = { type: 'object', properties: { city: { type: 'string' } } };
    expectTypeOf<ToolArgs<typeof widened>>().not.toBeAny();
    expectTypeOf<ToolArgs<typeof widened>>().toEqualTypeOf<Record<string, unknown>>();
  });
});
