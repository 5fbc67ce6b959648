/**
 * Icons are untrusted input (2025-11-25 basic/index, Icons). The client hands applications only icons that
 * are https: URLs without credentials or data: URIs of inert, allowed images; `fetchIcon` fetches from the
 * server's origin only, without credentials, refusing redirects, oversized bodies and content whose bytes are
 * not the image it claims to be. The HTTPS server is real, with a certificate made by openssl for the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, fetchIcon } from '../../src/client/index.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'icons-server.mjs');
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
  'hex',
);

describe('icons listed by a server', () => {
  it('reach the application only when safe: tools, prompts and server info alike', async () => {
    await using client = await McpClient.connect({ command: process.execPath, args: [FIXTURE] });
    const expected = [
      'https://example.com/ok.png',
      `data:image/png;base64,${PNG.toString('base64')}`,
      expect.stringMatching(/^data:image\/svg\+xml;base64,/),
    ];
    const [tool] = await client.listTools();
    expect(tool?.icons?.map((icon) => icon.src)).toEqual(expected);
    const [prompt] = await client.listPrompts();
    expect(prompt?.icons?.map((icon) => icon.src)).toEqual(expected);
    expect(client.serverInfo?.icons?.map((icon) => icon.src)).toEqual(expected);
    // The one SVG kept is the inert one.
    const svg = Buffer.from(String(tool?.icons?.[2]?.src.split(',')[1]), 'base64').toString('utf8');
    expect(svg).toBe('<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>');
  });
});

const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!openssl)('fetchIcon (a real HTTPS server; needs openssl for its certificate)', () => {
  let server: Server;
  let origin: string;
  let ca: Buffer;
  let dir: string;
  const seen: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentforge-icons-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    ca = readFileSync(join(dir, 'cert.pem'));
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
      seen.push({ ...req.headers });
      if (req.url === '/icon.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (req.url === '/fake.png')
        res.writeHead(200, { 'content-type': 'image/png' }).end('<html></html>');
      else if (req.url === '/script.svg')
        res.writeHead(200).end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      else if (req.url === '/huge.png') res.writeHead(200).end(Buffer.concat([PNG, Buffer.alloc(2 << 20)]));
      else if (req.url === '/moved.png') res.writeHead(302, { location: 'https://example.com/x.png' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const options = () => ({ serverUrl: `${origin}/mcp`, ca });

  it('fetches a PNG from the server origin without credentials, typed by its bytes', async () => {
    const icon = await fetchIcon({ src: `${origin}/icon.png`, mimeType: 'image/png' }, options());
    expect(icon.mimeType).toBe('image/png');
    expect(icon.bytes.equals(PNG)).toBe(true);
    const headers = seen.at(-1)!;
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it.each([
    ['/fake.png', /not an allowed, inert image/],
    ['/script.svg', /not an allowed, inert image/],
    ['/huge.png', /larger than 1048576 bytes/],
    ['/moved.png', /redirects are not followed/],
  ])('refuses %s', async (path, why) => {
    await expect(fetchIcon({ src: `${origin}${path}` }, options())).rejects.toThrow(why);
  });

  it('refuses another origin, plain http and javascript: before any connection', async () => {
    const before = seen.length;
    await expect(fetchIcon({ src: 'https://example.com/x.png' }, options())).rejects.toThrow(
      /not the server's origin/,
    );
    await expect(fetchIcon({ src: `http://127.0.0.1:1/x.png` }, options())).rejects.toThrow(
      /http: icons are never fetched/,
    );
    await expect(fetchIcon({ src: 'javascript:alert(1)' }, options())).rejects.toThrow(/javascript: icons/);
    expect(seen.length).toBe(before);
  });
});
