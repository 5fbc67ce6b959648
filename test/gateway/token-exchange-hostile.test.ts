/**
 * A token endpoint that answers with something other than a token response: the gateway's exchange reads the
 * answer against the OAuth response cap, follows no redirect, and fails that caller's exchange with an error
 * that never carries the caller's token.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/agent/config.js';
import { TokenExchanger } from '../../src/gateway/token-exchange.js';

const SUBJECT_TOKEN = `subject-${crypto.randomUUID()}`;
let endpoint: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    if (req.url === '/huge') {
      // A well-formed start of a token response that never ends under the cap.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"token_type":"Bearer","access_token":"');
      const chunk = 'a'.repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 4 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      more();
    } else if (req.url === '/redirect') {
      res.writeHead(307, { location: `${base}/elsewhere` }).end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token_type: 'Bearer', access_token: 'issued-for-upstream', expires_in: 60 }));
    }
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));

function serverAt(path: string) {
  const config = parseConfig({
    mcpServers: {
      files: {
        url: 'http://127.0.0.1:9/mcp',
        tokenExchange: {
          tokenEndpoint: `${base}${path}`,
          clientId: 'gateway',
          clientSecret: 'gateway-secret',
        },
      },
    },
  });
  return config.servers[0]!;
}

describe('token exchange against a hostile token endpoint', () => {
  it('refuses a response over the cap, and the error does not carry the caller token', async () => {
    const error = await new TokenExchanger()
      .credentials(serverAt('/huge'), 'alice', { subjectToken: SUBJECT_TOKEN })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(/token exchange at .*\/huge failed: .*exceeds 1048576 bytes/);
    expect(error?.message).not.toContain(SUBJECT_TOKEN);
  });

  it('does not follow a redirect away from the configured endpoint', async () => {
    hits.length = 0;
    const error = await new TokenExchanger()
      .credentials(serverAt('/redirect'), 'alice', { subjectToken: SUBJECT_TOKEN })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error).toBeInstanceOf(Error);
    expect(hits).toEqual(['/redirect']);
  });

  it('uses a well-formed answer', async () => {
    const credentials = await new TokenExchanger().credentials(serverAt('/token'), 'alice', {
      subjectToken: SUBJECT_TOKEN,
    });
    expect(credentials?.headers).toEqual({ authorization: 'Bearer issued-for-upstream' });
  });
});
