/**
 * Local HTTP fakes of LLM providers, speaking each one's real wire format (JSON and SSE streaming), for
 * tests that drive models and whole agent loops without the network. A fake is scripted: each request
 * gets the reply the script returns for it, and every request is recorded for assertions.
 *
 *   await using fake = await startFakeProvider('anthropic', [{ toolCalls: [{ name: 'w', arguments: {} }] }, { text: 'ok' }]);
 *   const model = createModel(fake.spec('claude-test'), fake.env);
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessages } from './anthropic.js';
import { geminiFormat } from './gemini.js';
import { openaiChat } from './openai.js';
import { openaiResponses } from './responses.js';
import type {
  FakeProviderKind,
  FakeProviderOptions,
  FakeReply,
  FakeScript,
  FakeTurn,
  RecordedRequest,
  WireFormat,
  WireTurn,
} from './types.js';

export { readToolResults, readToolNames, type NeutralToolResult } from './inspect.js';
export type * from './types.js';

export interface FakeProvider extends AsyncDisposable {
  readonly kind: FakeProviderKind;
  /** Base URL as the provider's *_BASE_URL variable expects it. */
  readonly baseUrl: string;
  /** Every request received, in order (also those answered with errors). */
  readonly requests: RecordedRequest[];
  /** Environment for `createModel`: base URL and an API key for this provider. */
  readonly env: Record<string, string>;
  /** `<provider>:<model>` for `createModel`. */
  spec(model?: string): string;
  close(): Promise<void>;
}

const SPEC_PREFIX: Record<FakeProviderKind, string> = {
  openai: 'openai',
  'openai-responses': 'openai-responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
};
const ENV_PREFIX: Record<FakeProviderKind, string> = {
  openai: 'OPENAI',
  'openai-responses': 'OPENAI',
  anthropic: 'ANTHROPIC',
  gemini: 'GEMINI',
};
const MAX_BODY = 16 * 1024 * 1024;

/** Starts a fake of `kind` on 127.0.0.1 (ephemeral port). Close it (or `await using`) when done. */
export async function startFakeProvider(
  kind: FakeProviderKind,
  script: FakeScript,
  options: FakeProviderOptions = {},
): Promise<FakeProvider> {
  const format = formatFor(kind, options);
  const requests: RecordedRequest[] = [];
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}${(++ids).toString().padStart(4, '0')}`;
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify(format.errorBody(500, `fake provider failure: ${String(error)}`)));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const route = format.route(req.method ?? 'GET', url);
    const text = await readBody(req);
    if (!route) return send(res, 404, format.errorBody(404, `no route for ${req.method} ${url.pathname}`));
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return send(res, 400, format.errorBody(400, 'body is not valid JSON'));
    }
    const stream = route.stream || body?.stream === true;
    const recorded: RecordedRequest = {
      method: req.method ?? 'POST',
      path: url.pathname + url.search,
      headers: req.headers,
      body,
      stream,
      model: route.model || String(body?.model ?? ''),
    };
    const index = requests.push(recorded) - 1;
    if (options.apiKey !== undefined && format.apiKey(req.headers, url) !== options.apiKey) {
      return send(res, 401, format.errorBody(401, 'invalid api key'));
    }
    const invalid = format.validate(body);
    if (invalid) return send(res, 400, format.errorBody(400, invalid));
    const reply = await nextReply(script, body, recorded, index);
    if ('hang' in reply) return hang(res, reply.hang, format, stream);
    if ('error' in reply) {
      const headers: Record<string, string> =
        reply.error.retryAfter === undefined ? {} : { 'retry-after': reply.error.retryAfter };
      return send(
        res,
        reply.error.status,
        format.errorBody(reply.error.status, reply.error.message),
        headers,
      );
    }
    const turn = wireTurn(reply, format, recorded.model, options.chunkSize ?? 7, nextId);
    if (!stream) return send(res, 200, format.json(turn));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of format.events(turn)) {
      res.write(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`);
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const baseUrl = kind === 'openai' || kind === 'openai-responses' ? `${origin}/v1` : origin;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    kind,
    baseUrl,
    requests,
    env: {
      [`${ENV_PREFIX[kind]}_BASE_URL`]: baseUrl,
      [`${ENV_PREFIX[kind]}_API_KEY`]: options.apiKey ?? 'test-key',
    },
    spec: (model = 'fake-model') => `${SPEC_PREFIX[kind]}:${model}`,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function formatFor(kind: FakeProviderKind, options: FakeProviderOptions): WireFormat {
  switch (kind) {
    case 'openai':
      return openaiChat;
    case 'openai-responses':
      return openaiResponses;
    case 'anthropic':
      return anthropicMessages;
    case 'gemini':
      return geminiFormat(options.geminiIds ?? false);
  }
}

async function nextReply(
  script: FakeScript,
  body: any,
  request: RecordedRequest,
  index: number,
): Promise<FakeReply> {
  if (typeof script === 'function') return script(body, request, index);
  const reply = script[index];
  if (!reply) return { error: { status: 500, message: `fake script has no reply for request ${index}` } };
  return reply;
}

function wireTurn(
  turn: FakeTurn,
  format: WireFormat,
  model: string,
  chunkSize: number,
  nextId: (prefix: string) => string,
): WireTurn {
  return {
    text: turn.text ?? '',
    calls: (turn.toolCalls ?? []).map((call) => ({
      id: call.id ?? nextId(format.callIdPrefix),
      name: call.name,
      raw: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      value: call.arguments,
    })),
    stopReason: turn.stopReason,
    usage: turn.usage ?? { input: 10, output: 5 },
    model,
    chunkSize,
    nextId,
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Holds the request open until the client gives up or the fake closes. */
function hang(res: ServerResponse, where: 'headers' | 'body', format: WireFormat, stream: boolean): void {
  if (where === 'headers') return;
  res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  if (stream) {
    const first = format.events({ ...emptyTurn, nextId: () => 'x' })[0];
    if (first)
      res.write(`${first.event === undefined ? '' : `event: ${first.event}\n`}data: ${first.data}\n\n`);
  } else res.write('{"id":');
}

const emptyTurn = {
  text: 'partial',
  calls: [],
  stopReason: undefined,
  usage: { input: 1, output: 1 },
  model: 'm',
  chunkSize: 3,
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
