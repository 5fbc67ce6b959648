// biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json uses ${VAR} interpolation, tested verbatim.
/**
 * The `agentforge` binary as users run it (dist/cli/main.js, built by the global setup), against the bundled
 * example servers and, for `run`, a fake OpenAI endpoint speaking the real wire format.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSCRIPT_SCHEMA } from '../../src/agent/transcript.js';
import { type FakeProvider, readToolResults, startFakeProvider } from '../support/fake-providers/index.js';
import { type HttpExample, LAB, ORDERS, ROOT, WEATHER, startHttp } from '../agent/support.js';

const MAIN = join(ROOT, 'dist/cli/main.js');

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<Ran> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(AGENTFORGE_MODEL|OPENAI_|ANTHROPIC_|GEMINI_|OLLAMA_)/.test(k),
    ),
  );
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

let dir: string;
let configPath: string;
let orders: HttpExample;

beforeAll(async () => {
  orders = await startHttp(ORDERS);
  dir = await mkdtemp(join(tmpdir(), 'agentforge-cli-'));
  configPath = join(dir, 'mcp.json');
  await writeFile(
    configPath,
    JSON.stringify({
      mcpServers: {
        weather: { command: process.execPath, args: [WEATHER] },
        orders: { url: orders.url, type: 'http', headers: { 'x-tenant': '${TENANT:-demo}' } },
      },
    }),
  );
});

afterAll(async () => {
  await orders?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('agentforge tools', () => {
  it('list prints every llmName with its server and MCP name', async () => {
    const { code, stdout } = await cli(['tools', 'list', '--config', configPath]);
    expect(code).toBe(0);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t').slice(0, 2));
    expect(rows).toEqual([
      ['orders__get_order', 'orders/get_order'],
      ['orders__list_orders', 'orders/list_orders'],
      ['weather__get_weather', 'weather/get_weather'],
    ]);
  });

  it('list --json carries servers and full tool definitions', async () => {
    const { code, stdout } = await cli(['tools', 'list', '--config', configPath, '--json']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.servers.map((s: { name: string; state: string }) => [s.name, s.state])).toEqual([
      ['weather', 'ready'],
      ['orders', 'ready'],
    ]);
    expect(out.tools.find((t: { llmName: string }) => t.llmName === 'weather__get_weather')).toMatchObject({
      server: 'weather',
      mcpName: 'get_weather',
      inputSchema: { required: ['location'] },
      annotations: { readOnlyHint: true },
    });
  });

  it('call runs one tool without a model; isError exits 1', async () => {
    const ok = await cli([
      'tools',
      'call',
      '--config',
      configPath,
      'weather__get_weather',
      '--args',
      '{"location":"Hangzhou"}',
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: 'Hangzhou: 26°C, sunny\n' });
    const json = await cli([
      'tools',
      'call',
      '-c',
      configPath,
      'orders__get_order',
      '--args',
      '{"orderId":"12345"}',
      '--json',
    ]);
    expect(JSON.parse(json.stdout).structuredContent).toMatchObject({
      orderId: '12345',
      trackingNumber: 'SF1001',
    });
    const bad = await cli([
      'tools',
      'call',
      '-c',
      configPath,
      'weather__get_weather',
      '--args',
      '{"location":"Mars"}',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('Unknown city "Mars"');
  });

  it('reports a server that fails to start, and still serves the others', async () => {
    const partial = join(dir, 'partial.json');
    await writeFile(
      partial,
      JSON.stringify({
        mcpServers: {
          weather: { command: process.execPath, args: [WEATHER] },
          broken: { command: process.execPath, args: ['-e', 'process.exit(9)'] },
        },
      }),
    );
    const { code, stdout, stderr } = await cli(['tools', 'list', '--config', partial]);
    expect(stderr).toMatch(
      /^agentforge: server "broken" failed to connect \(exited with code 9\); its stderr is in \S+mcp-server-broken\.log; its tools are not listed$/m,
    );
    expect(stdout).toContain('weather__get_weather');
    expect(code).toBe(1);
  });

  it('explains usage errors and config errors with exit code 2 / 1', async () => {
    const usage = await cli(['tools', 'call', '--config', configPath, 'x', '--args', '[1]']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--args must be a JSON object');
    const broken = join(dir, 'broken.json');
    await writeFile(
      broken,
      JSON.stringify({ mcpServers: { w: { command: 'node', args: ['${NOT_SET_ANYWHERE}'] } } }),
    );
    const config = await cli(['tools', 'list', '--config', broken]);
    expect(config.code).toBe(1);
    expect(config.stderr).toContain(
      `${broken}, server "w", key "args[0]": environment variable NOT_SET_ANYWHERE is not set`,
    );
  });
});

describe('agentforge run --json', () => {
  let fake: FakeProvider;

  beforeAll(async () => {
    fake = await startFakeProvider('openai', (body) => {
      if (readToolResults('openai', body).length === 0) {
        return {
          toolCalls: [
            { id: 'call_w', name: 'weather__get_weather', arguments: { location: 'Hangzhou' } },
            { id: 'call_o', name: 'orders__get_order', arguments: { orderId: '12345' } },
          ],
        };
      }
      const [weather, order] = readToolResults('openai', body);
      return { text: `Weather: ${weather?.text}. Order: ${order?.isError ? 'not allowed' : order?.text}.` };
    });
  });

  afterAll(async () => {
    await fake?.close();
  });

  it('prints the documented transcript: messages, and each call with names, result, approval and timing', async () => {
    const audit = join(dir, 'audit.jsonl');
    const { code, stdout, stderr } = await cli(
      [
        'run',
        '--config',
        configPath,
        '--model',
        'openai:gpt-test',
        '--approve',
        'weather__*',
        '--json',
        '--audit',
        audit,
        'Weather in Hangzhou and order 12345?',
      ],
      fake.env,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const transcript = JSON.parse(stdout);
    // The documented format, checked as a JSON Schema (date-times are checked with Date.parse below).
    const validate = new Ajv2020({
      strict: true,
      allowUnionTypes: true,
      formats: { 'date-time': true },
    }).compile(TRANSCRIPT_SCHEMA);
    expect(validate(transcript) ? [] : validate.errors).toEqual([]);
    expect(Object.keys(transcript)).toEqual([
      'format',
      'version',
      'runId',
      'model',
      'task',
      'answer',
      'stopReason',
      'steps',
      'startedAt',
      'durationMs',
      'usage',
      'servers',
      'tools',
      'messages',
      'toolCalls',
    ]);
    expect(transcript).toMatchObject({
      format: 'agentforge.transcript',
      version: 1,
      model: 'openai:gpt-test',
      task: 'Weather in Hangzhou and order 12345?',
      answer: 'Weather: Hangzhou: 26°C, sunny. Order: not allowed.',
      stopReason: 'answer',
      steps: 2,
    });
    expect(transcript.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    const [weather, order] = transcript.toolCalls;
    expect(Object.keys(weather)).toEqual([
      'id',
      'step',
      'llmName',
      'server',
      'mcpName',
      'arguments',
      'status',
      'isError',
      'result',
      'approval',
      'timing',
    ]);
    expect(weather).toMatchObject({
      id: 'call_w',
      llmName: 'weather__get_weather',
      server: 'weather',
      mcpName: 'get_weather',
      arguments: { location: 'Hangzhou' },
      status: 'ok',
      isError: false,
      result: { content: [{ type: 'text', text: 'Hangzhou: 26°C, sunny' }] },
      approval: { decision: 'approved', by: 'policy' },
    });
    expect(weather.timing.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(weather.timing.startedAt)).not.toBeNaN();
    // Not covered by --approve, and no terminal to ask: denied, and the model was told.
    expect(order).toMatchObject({
      llmName: 'orders__get_order',
      server: 'orders',
      status: 'denied',
      isError: true,
      approval: { decision: 'denied', by: 'non-interactive' },
    });
    const lines = (await readFile(audit, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.llmName, l.server, l.tool, l.approval?.decision, l.status])).toEqual(
      expect.arrayContaining([
        ['weather__get_weather', 'weather', 'get_weather', 'approved', 'ok'],
        ['orders__get_order', 'orders', 'get_order', 'denied', 'denied'],
      ]),
    );
    expect(lines[0].resultBytes).toBeGreaterThan(0);
  });

  it('without --json prints only the answer on stdout', async () => {
    const { code, stdout } = await cli(
      ['run', '-c', configPath, '--approve', 'all', 'Weather in Hangzhou and order 12345?'],
      { ...fake.env, AGENTFORGE_MODEL: 'openai:gpt-test' },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Weather: Hangzhou: 26°C, sunny\. Order: \{.*"orderId":"12345".*\}\.\n$/);
  });
});

describe('agentforge chat', () => {
  it('streams the answer, shows tool calls and asks for approval on the terminal', async () => {
    await using fake = await startFakeProvider('anthropic', (body) => {
      const last = body.messages.at(-1);
      const results = Array.isArray(last?.content)
        ? last.content.filter((b: any) => b.type === 'tool_result')
        : [];
      if (results.length === 0)
        return { toolCalls: [{ name: 'weather__get_weather', arguments: { location: 'Beijing' } }] };
      return { text: `In Beijing: ${results[0].content[0]?.text ?? results[0].content}` };
    });
    const input = 'How is Beijing?\ny\n/tools\n/exit\n';
    const { code, stdout } = await cli(
      ['chat', '--config', configPath, '--model', fake.spec('claude-test')],
      fake.env,
      input,
    );
    expect(code).toBe(0);
    expect(stdout).toContain(
      '? Approve tool call weather__get_weather (server "weather", tool "get_weather")',
    );
    expect(stdout).toContain('arguments: {"location":"Beijing"}');
    expect(stdout).toContain('server hints (not verified): readOnlyHint=true, openWorldHint=false');
    expect(stdout).toContain('· observe: weather__get_weather ok');
    expect(stdout).toContain('In Beijing: Beijing: 18°C, cloudy');
    expect(stdout).toContain('weather__get_weather  -> weather / get_weather'); // from /tools
  });
});

describe('agentforge chat with server requests', () => {
  it('asks the person for an elicitation form and for sampling, on the same terminal', async () => {
    await using fake = await startFakeProvider('openai', (body) => {
      if (!body.tools) return { text: 'Paris' }; // the sampling request: the agent's model, without tools
      const results = readToolResults('openai', body);
      if (body.messages.filter((m: any) => m.role === 'tool').length === 0) {
        return { toolCalls: [{ name: 'lab__ask_user', arguments: {} }] };
      }
      if (results[0]?.text.startsWith('ship to'))
        return { toolCalls: [{ name: 'lab__ask_model', arguments: { q: 'Capital of France?' } }] };
      return { text: `done: ${results[0]?.text}` };
    });
    const labConfig = join(dir, 'lab.json');
    await writeFile(
      labConfig,
      JSON.stringify({ mcpServers: { lab: { command: process.execPath, args: [LAB, 'cli-lab'] } } }),
    );
    // approve ask_user, fill the form (city), send it, approve ask_model, allow sampling, quit
    const input = 'ship my order\ny\nHangzhou\ny\ny\ny\n/exit\n';
    const { code, stdout } = await cli(
      ['chat', '-c', labConfig, '-m', fake.spec('gpt-test')],
      fake.env,
      input,
    );
    expect(code).toBe(0);
    expect(stdout).toContain('? Server "lab" asks: Where should we ship it?');
    expect(stdout).toContain('? Server "lab" asks to use the model (1 message(s), up to 50 tokens):');
    expect(stdout).toContain('done: model said: Paris');
  });
});

describe('agentforge demo', () => {
  it('runs the bundled servers end to end with the clearly labelled offline model', async () => {
    const { code, stdout, stderr } = await cli(['demo'], { OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('OFFLINE DEMO MODEL');
    expect(stdout).toContain('weather__get_weather        -> weather / get_weather');
    expect(stdout).toMatch(/orders: ready via http:\/\/127\.0\.0\.1:\d+\/mcp/);
    // Each line names the step of the agent loop it shows, in words, in the order the loop runs.
    const steps = [...stdout.matchAll(/^\[(\w+)\]/gm)].map((m) => m[1]);
    expect([...new Set(steps)]).toEqual([
      'connect',
      'discover',
      'registry',
      'think',
      'act',
      'observe',
      'answer',
      'close',
    ]);
    expect(stdout).toContain('[think] step 1, asking the model');
    expect(stdout).toContain('[observe] logistics__track_shipment ok');
    expect(stdout).toContain('- weather__get_weather: Hangzhou: 26°C, sunny');
    expect(stdout).toContain('[close] closing');
  });
});
