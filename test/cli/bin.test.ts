/**
 * The package as users reach it in a clone after `npm ci && npm run build`: `npx agentforge`, and the
 * README's main job, the demo, driven by a configured model (a fake OpenAI endpoint with the real wire format).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readToolNames, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { ROOT } from '../agent/support.js';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function exec(command: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(AGENTFORGE_MODEL|OPENAI_|ANTHROPIC_|GEMINI_|OLLAMA_)/.test(k),
    ),
  );
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the agentforge bin', () => {
  it('runs as `npx agentforge` inside the clone (package bin, executable, with a shebang)', async () => {
    const npx = (args: string[]) => exec('npx', ['--no', '--', 'agentforge', ...args]);
    const help = await npx(['--help']);
    expect(help).toMatchObject({ code: 0 });
    expect(help.stdout).toContain('agentforge run [--config <mcp.json>]');
    // The version is package.json's, read at run time, not a copy in the code.
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await npx(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const listed = await npx(['tools', 'list', '--config', 'examples/mcp.json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').map((line) => line.split('\t')[0])).toEqual(
      expect.arrayContaining(['weather__get_weather', 'orders__get_order', 'refunds__request_refund']),
    );
    // Three npx starts (npm itself loads for each): 30 s was not enough once at load 11.
  }, 120_000);
});

describe('agentforge demo with a configured model', () => {
  it('uses AGENTFORGE_MODEL instead of the offline model, over the bundled stdio and HTTP servers', async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      const results = readToolResults('openai', body);
      if (results.length > 0) return { text: `Answer from the model: ${results[0]?.text}` };
      return { toolCalls: [{ name: 'orders__get_order', arguments: { orderId: '34567' } }] };
    });
    const ran = await exec(process.execPath, ['dist/cli/main.js', 'demo'], {
      ...fake.env,
      AGENTFORGE_MODEL: 'openai:gpt-demo',
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('agentforge demo — model openai:gpt-demo');
    expect(ran.stdout).not.toContain('OFFLINE DEMO MODEL');
    expect(fake.requests[0]?.body.model).toBe('gpt-demo');
    expect(readToolNames('openai', fake.requests[0]!.body)).toEqual([
      'logistics__track_shipment',
      'orders__get_order',
      'orders__list_orders',
      'refunds__get_refund_status',
      'refunds__request_refund',
      'weather__get_weather',
    ]);
    expect(ran.stdout).toContain('[act] orders__get_order -> tools/call orders / get_order');
    expect(ran.stdout).toMatch(/\[answer\]\nAnswer from the model: \{"orderId":"34567","status":"delivered"/);
  });
});
