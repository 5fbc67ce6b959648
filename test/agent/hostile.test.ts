/**
 * Servers that try to break the host through what they list. Each case here once froze or crashed it.
 */
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/agent/host.js';
import { ROOT, WEATHER, config, stdio } from './support.js';

const DEEP_SCHEMA = `${ROOT}test/fixtures/deep-schema-server.mjs`;

describe('a hostile server', () => {
  it('a tool schema nested 10,000 deep is left out with a warning; its siblings and other servers serve', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, warn: (message: string) => void warnings.push(message), error() {} };
    await using host = await McpHost.start(config({ deep: stdio(DEEP_SCHEMA), weather: stdio(WEATHER) }), {
      logger,
    });
    const names = host.registry.entries().map((entry) => entry.llmName);
    expect(names).toEqual(['deep__fine', 'weather__get_weather']);
    expect(warnings).toContain(
      'server "deep": tool "deep" is left out: its definition nesting exceeds 66 levels',
    );
    // The host's model view serialises without trouble.
    expect(() => JSON.stringify(host.registry.definitions())).not.toThrow();
  });
});
