/**
 * The CLI's OTLP export: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver on
 * 127.0.0.1, the built CLI exports the spans of its MCP requests and of an agent run; without the SDK
 * packages it says so in one line and works untraced.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, WEATHER } from '../agent/support.js';
import { cli } from '../cli/support.js';

interface Export {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

let receiver: Server;
let endpoint: string;
const exports: Export[] = [];
let dir: string;
let config: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'agentforge-otlp-'));
  config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { weather: { command: process.execPath, args: [WEATHER] } } }),
  );
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Every span name in what the receiver got (OTLP protobuf or JSON both carry names as UTF-8). */
const exported = (): string => exports.map((e) => e.body.toString('latin1')).join('\n');

describe('OTLP export from the CLI', () => {
  it('tools call exports the CLIENT span of the tools/call to /v1/traces', async () => {
    exports.length = 0;
    const ran = await cli(
      ['tools', 'call', 'weather__get_weather', '--args', '{"location":"Hangzhou"}', '--config', config],
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      },
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(exports.length).toBeGreaterThan(0);
    expect(exports[0]!.path).toBe('/v1/traces');
    expect(exported()).toContain('tools/call get_weather');
    expect(exported()).toContain('mcp.method.name');
  });

  it('run exports the agent spans with the MCP span inside', async () => {
    exports.length = 0;
    const ran = await cli(
      ['run', '--model', 'demo', '--approve', '*', '--config', config, 'weather in Hangzhou'],
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      },
    );
    expect(ran.code).toBe(0);
    const names = exported();
    expect(names).toContain('invoke_agent');
    expect(names).toContain('chat offline-rules');
    expect(names).toContain('execute_tool weather__get_weather');
    expect(names).toContain('tools/call get_weather');
  });

  it('without the SDK packages: one line, and the command still works', async () => {
    // The built package beside its dependencies only, as a user without the OpenTelemetry packages has it.
    const pkg = join(dir, 'pkg');
    cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    const manifest = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })).default as {
      dependencies: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies)) {
      mkdirSync(dirname(join(pkg, 'node_modules', dependency)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dependency), join(pkg, 'node_modules', dependency), 'dir');
    }
    exports.length = 0;
    const ran = spawnSync(
      process.execPath,
      [join(pkg, 'dist/cli/main.js'), 'tools', 'list', '--config', config],
      {
        env: { PATH: process.env.PATH ?? '', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
        encoding: 'utf8',
      },
    );
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('weather__get_weather');
    const lines = ran.stderr.split('\n');
    expect(lines.filter((line) => line.includes('OTEL'))).toEqual([
      'agentforge: OTEL_EXPORTER_OTLP_ENDPOINT is set but @opentelemetry/sdk-trace-node and @opentelemetry/exporter-trace-otlp-http are not installed; not exporting traces (npm install @opentelemetry/sdk-trace-node @opentelemetry/exporter-trace-otlp-http)',
    ]);
    expect(exports).toEqual([]);
  });
});
