/**
 * The `_meta` a 2026-07-28 peer repeats in every message is parsed once by the stdio reader on each side
 * (src/jsonrpc/repeated-meta.ts): a real client and a real server process, their handler and results watched.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/index.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'server-core-stdio.mjs');

interface MetaReport {
  frozen: boolean;
  sameAsPrevious: boolean;
  progressToken: string | number | null;
  clientInfo: { name: string } | null;
}

describe('a repeated _meta over stdio', () => {
  it('reaches the handler as one read-only object once repeated; a _meta of its own stays its own', async () => {
    await using client = await McpClient.connect(
      { command: process.execPath, args: [FIXTURE] },
      { clientInfo: { name: 'meta-test', version: '1.0.0' } },
    );
    const reports: MetaReport[] = [];
    const results: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 20; i++) {
      const result = await client.callTool({ name: 'meta', arguments: {} });
      results.push(result._meta as Record<string, unknown>);
      reports.push(JSON.parse((result.content[0] as { text: string }).text) as MetaReport);
    }
    // The first calls each parse their own _meta; once learnt, every call shares the server's one copy.
    expect(reports[0]).toMatchObject({ frozen: false, sameAsPrevious: false });
    expect(reports.slice(-2)).toEqual([
      {
        frozen: true,
        sameAsPrevious: true,
        progressToken: null,
        clientInfo: { name: 'meta-test', version: '1.0.0' },
      },
      {
        frozen: true,
        sameAsPrevious: true,
        progressToken: null,
        clientInfo: { name: 'meta-test', version: '1.0.0' },
      },
    ]);
    // The client's reader does the same with the serverInfo _meta ending every result.
    const [before, last] = results.slice(-2);
    expect(last).toBe(before);
    expect(Object.isFrozen(last)).toBe(true);
    expect(last).toEqual({
      'io.modelcontextprotocol/serverInfo': { name: 'stdio-core-fixture', version: '1.0.0' },
    });

    // A request whose _meta differs (a progress token) is parsed whole: the handler sees its own.
    const own = await client.callTool({ name: 'meta', arguments: {} }, { onprogress: () => {} });
    expect(JSON.parse((own.content[0] as { text: string }).text)).toMatchObject({
      frozen: false,
      sameAsPrevious: false,
      progressToken: expect.anything(),
    });
  });
});
