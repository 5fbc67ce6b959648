// biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json uses ${VAR} interpolation, tested verbatim.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, referencedInputs } from '../../src/agent/config.js';

describe('mcp.json', () => {
  it('reads stdio and URL servers in the Claude Desktop / VS Code shape, with our keys', () => {
    const config = parseConfig(
      {
        mcpServers: {
          weather: { command: 'node', args: ['weather.mjs'], env: { UNITS: 'metric' }, cwd: 'servers' },
          orders: {
            url: 'https://orders.example/mcp',
            headers: { authorization: 'Bearer ${TOKEN}' },
            tools: { allow: ['get_*'], deny: ['get_secret'] },
            group: 'support',
            timeoutMs: 5000,
            approval: { auto: ['get_*'] },
          },
          legacy: {
            type: 'sse',
            url: 'http://127.0.0.1:9/sse',
            enabled: false,
            protocolVersion: '2024-11-05',
          },
          vscode: {
            type: 'http',
            url: 'http://127.0.0.1:9/mcp',
            group: ['a', 'b'],
            expose: { resources: true },
          },
        },
      },
      { env: { TOKEN: 's3cret' }, baseDir: '/etc/agent', source: 'mcp.json' },
    );
    const [weather, orders, legacy, vscode] = config.servers;
    expect(weather?.target).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['weather.mjs'],
      env: { UNITS: 'metric' },
      cwd: '/etc/agent/servers',
    });
    expect(weather?.approval).toBe('ask');
    expect(weather?.enabled).toBe(true);
    expect(orders?.target).toEqual({
      kind: 'http',
      url: 'https://orders.example/mcp',
      headers: { authorization: 'Bearer s3cret' },
      mode: 'auto',
    });
    expect(orders?.tools).toEqual({ allow: ['get_*'], deny: ['get_secret'] });
    expect(orders?.groups).toEqual(['support']);
    expect(orders?.timeoutMs).toBe(5000);
    expect(orders?.approval).toEqual({ auto: ['get_*'], deny: [] });
    expect(legacy?.target).toMatchObject({ kind: 'http', mode: 'sse' });
    expect(legacy?.enabled).toBe(false);
    expect(legacy?.protocolVersion).toBe('2024-11-05');
    expect(vscode?.target).toMatchObject({ mode: 'streamable-http' });
    expect(vscode?.groups).toEqual(['a', 'b']);
    expect(vscode?.expose).toEqual({ resources: true, prompts: false });
  });

  it('interpolates ${VAR}, ${env:VAR} and ${VAR:-default}, and keeps $${ literal', () => {
    const config = parseConfig(
      { mcpServers: { s: { command: '${BIN}', args: ['${env:ARG}', '${MISSING:-fallback}', '$${HOME}'] } } },
      { env: { BIN: '/usr/bin/node', ARG: 'x' } },
    );
    expect(config.servers[0]?.target).toMatchObject({
      command: '/usr/bin/node',
      args: ['x', 'fallback', '${HOME}'],
    });
  });

  it('reads tokenExchange, interpolating ${VAR} (the client secret of the gateway)', () => {
    const config = parseConfig(
      {
        mcpServers: {
          s: {
            url: 'https://files.example/mcp',
            tokenExchange: {
              tokenEndpoint: 'http://127.0.0.1:9000/token',
              clientId: 'gateway',
              clientSecret: '${SECRET}',
              audience: 'files',
              scope: 'files:read',
            },
          },
        },
      },
      { env: { SECRET: 's3cret' } },
    );
    expect(config.servers[0]?.tokenExchange).toEqual({
      tokenEndpoint: 'http://127.0.0.1:9000/token',
      clientId: 'gateway',
      clientSecret: 's3cret',
      audience: 'files',
      scope: 'files:read',
    });
  });

  it.each([
    [{ mcpServers: { s: { command: 'x', args: ['${NOPE}'] } } }, 's', 'args[0]', 'NOPE is not set'],
    [{ mcpServers: { s: { command: 'x', colour: 1 } } }, 's', 'colour', 'unknown key'],
    [{ mcpServers: { s: { url: 'ftp://x' } } }, 's', 'url', 'http(s)'],
    [{ mcpServers: { s: { type: 'ws', url: 'http://x' } } }, 's', 'type', 'must be'],
    [{ mcpServers: { s: { command: 'x', timeoutMs: -1 } } }, 's', 'timeoutMs', 'positive'],
    [{ mcpServers: { s: { command: 'x', tools: { allow: 'get_*' } } } }, 's', 'tools.allow', 'array'],
    [{ mcpServers: { s: { command: 'x', approval: 'maybe' } } }, 's', 'approval', 'must be'],
    [{ mcpServers: { s: {} } }, 's', 'command', 'non-empty'],
    [
      { mcpServers: { s: { command: 'x', protocolVersion: 'latest' } } },
      's',
      'protocolVersion',
      'revision date',
    ],
    [{ mcpServers: { s: { command: 'x', tokenExchange: {} } } }, 's', 'tokenExchange', 'only an HTTP'],
    [{ mcpServers: { s: { url: 'https://x', tokenExchange: [] } } }, 's', 'tokenExchange', 'object'],
    [
      { mcpServers: { s: { url: 'https://x', tokenExchange: { tokenEndpoint: 'https://as/token' } } } },
      's',
      'tokenExchange.clientId',
      'required',
    ],
    [
      {
        mcpServers: {
          s: { url: 'https://x', tokenExchange: { tokenEndpoint: 'http://as.example/token', clientId: 'c' } },
        },
      },
      's',
      'tokenExchange.tokenEndpoint',
      'https URL (or http on loopback)',
    ],
    [
      {
        mcpServers: {
          s: {
            url: 'https://x',
            tokenExchange: { tokenEndpoint: 'https://as/t', clientId: 'c', actor: 'a' },
          },
        },
      },
      's',
      'tokenExchange.actor',
      'unknown key',
    ],
  ])('names the file, the server and the key in errors (%#)', (json, server, key, reason) => {
    let caught: unknown;
    try {
      parseConfig(json, { env: {}, source: 'conf/mcp.json' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect([error.source, error.server, error.key]).toEqual(['conf/mcp.json', server, key]);
    expect(error.message).toContain(`conf/mcp.json, server "${server}", key "${key}"`);
    expect(error.message).toContain(reason);
  });

  it('reports unreadable and malformed files by path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-config-'));
    try {
      const path = join(dir, 'mcp.json');
      await writeFile(path, '{ "mcpServers": ');
      await expect(loadConfig(path)).rejects.toThrow(`${path}: not valid JSON`);
      await expect(loadConfig(join(dir, 'absent.json'))).rejects.toThrow('absent.json: cannot read');
      await writeFile(path, JSON.stringify({ mcpServers: { a: { command: 'node', cwd: '.' } } }));
      const config = await loadConfig(path);
      expect(config.servers[0]?.target).toMatchObject({ cwd: dir });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('resolves ./ and ../ in command and args against the config directory, and nothing else', () => {
    const config = parseConfig(
      {
        mcpServers: { s: { command: './bin/server', args: ['../data', 'plain/relative', '-v', '.hidden'] } },
      },
      { baseDir: '/projects/app' },
    );
    expect(config.servers[0]?.target).toMatchObject({
      command: '/projects/app/bin/server',
      args: ['/projects/data', 'plain/relative', '-v', '.hidden'],
    });
  });

  it('${input:ID}: listed with its declaration, filled from inputs, escaped with $$, an error when missing', () => {
    const json = {
      inputs: [{ id: 'key', type: 'promptString', description: 'API key', password: true }],
      servers: { s: { command: 'x', env: { KEY: '${input:key}', LITERAL: '$${input:not_asked}' } } },
    };
    expect(referencedInputs(json)).toEqual([{ id: 'key', description: 'API key', password: true }]);
    const config = parseConfig(json, { inputs: { key: 'k-123' } });
    expect(config.servers[0]?.target).toMatchObject({ env: { KEY: 'k-123', LITERAL: '${input:not_asked}' } });
    expect(() => parseConfig(json, { source: 'vs.json' })).toThrow(
      'vs.json, server "s", key "env.KEY": input "key" has no value',
    );
  });

  it('loadConfig asks resolveInput for each input once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-inputs-'));
    try {
      const file = join(dir, 'mcp.json');
      await writeFile(
        file,
        JSON.stringify({
          servers: { s: { command: 'x', args: ['${input:a}', '${input:a}', '${input:b}'] } },
        }),
      );
      const asked: string[] = [];
      const config = await loadConfig(file, {
        resolveInput: async (input) => {
          asked.push(input.id);
          return `<${input.id}>`;
        },
      });
      expect(asked).toEqual(['a', 'b']);
      expect(config.servers[0]?.target).toMatchObject({ args: ['<a>', '<a>', '<b>'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
