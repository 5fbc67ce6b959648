import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_MODEL_ID } from '../../src/agent/demo-model.js';
import { chooseModel, probeOllama } from '../../src/cli/setup.js';

/** A local endpoint answering Ollama's /api/tags (the probe's only request). */
async function tagsServer(body: unknown, delayMs = 0) {
  const server = createServer((req, res) => {
    setTimeout(() => {
      res.writeHead(req.url === '/api/tags' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('model choice', () => {
  it('prefers --model, then AGENTFORGE_MODEL; demo names the offline model', async () => {
    const env = { AGENTFORGE_MODEL: 'anthropic:claude-x', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' };
    expect((await chooseModel('openai:gpt-x', env))?.model.id).toBe('openai:gpt-x');
    expect(await chooseModel(undefined, env)).toMatchObject({
      source: 'env',
      model: { id: 'anthropic:claude-x' },
    });
    expect((await chooseModel('demo', {}))?.model.id).toBe(DEMO_MODEL_ID);
    expect(await chooseModel(undefined, {})).toBeUndefined();
  });

  it('falls back to a local Ollama that answers, else to the labelled demo model', async () => {
    await using ollama = await tagsServer({ models: [{ name: 'qwen2.5:7b' }, { name: 'llama3.1' }] });
    const found = await chooseModel(undefined, { OLLAMA_BASE_URL: ollama.base }, true);
    expect(found).toMatchObject({ source: 'ollama', model: { id: 'ollama:qwen2.5:7b' } });
    const none = await chooseModel(undefined, { OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1' }, true);
    expect(none).toMatchObject({ source: 'demo', model: { id: DEMO_MODEL_ID } });
  });

  it('gives up on a slow or empty Ollama quickly', async () => {
    await using slow = await tagsServer({ models: [{ name: 'm' }] }, 2000);
    const started = Date.now();
    expect(await probeOllama({ OLLAMA_BASE_URL: slow.base }, 200)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1500);
    await using empty = await tagsServer({ models: [] });
    expect(await probeOllama({ OLLAMA_BASE_URL: empty.base })).toBeUndefined();
  });
});
