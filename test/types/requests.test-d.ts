/** Type tests: connection.request typed from the one request map (checked by tsc; see tool-args.test-d.ts). */
import { describe, expectTypeOf, it } from 'vitest';
import type { Connection, RequestContext, Result } from '../../src/jsonrpc/index.js';
import type {
  CallToolResult,
  ClientRequests,
  Completed,
  InputRequest,
  InputRequiredResult,
  ListRootsResult,
  ListToolsResult,
  RequestParams,
  RequestResult,
  ServerRequests,
} from '../../src/mcp/index.js';

declare const client: Connection<ClientRequests>;
declare const untyped: Connection;
declare const served: RequestContext<ServerRequests>;

describe('Connection<ClientRequests>', () => {
  it('types params and result by method', () => {
    expectTypeOf(client.request('tools/list')).toEqualTypeOf<Promise<ListToolsResult>>();
    expectTypeOf(
      client.request('tools/call', { name: 'get_weather', arguments: { city: 'Paris' } }),
    ).toEqualTypeOf<Promise<Completed<CallToolResult> | InputRequiredResult>>();
    // @ts-expect-error tools/call needs params
    client.request('tools/call');
    // @ts-expect-error tools/call params need a name
    client.request('tools/call', { arguments: {} });
    // @ts-expect-error a cursor is a string
    client.request('tools/list', { cursor: 1 });
  });

  it('knows which side sends what', () => {
    // @ts-expect-error a client does not send sampling/createMessage
    client.request('sampling/createMessage', { messages: [], maxTokens: 1 });
    // @ts-expect-error no such method
    client.request('tools/run', {});
    expectTypeOf(served.request('roots/list')).toEqualTypeOf<Promise<ListRootsResult>>();
    // @ts-expect-error a server does not send tools/call
    served.request('tools/call', { name: 'x' });
  });

  it('an untyped connection takes any method, as before', () => {
    expectTypeOf(untyped.request('vendor/anything', { x: 1 })).toEqualTypeOf<Promise<Result>>();
    expectTypeOf(untyped.request('ping')).toEqualTypeOf<Promise<Result>>();
  });
});

describe('the map and the MCP model agree', () => {
  it('resultType tells an input_required answer from a final one', async () => {
    const result = await client.request('tools/call', { name: 'x' });
    if (result.resultType === 'input_required') {
      expectTypeOf(result).toEqualTypeOf<InputRequiredResult>();
    } else {
      expectTypeOf(result.content).toEqualTypeOf<CallToolResult['content']>();
    }
  });

  it('the MRTR methods may answer input_required, the others not', () => {
    expectTypeOf<Extract<RequestResult<'tools/call'>, InputRequiredResult>>().not.toBeNever();
    expectTypeOf<Extract<RequestResult<'prompts/get'>, InputRequiredResult>>().not.toBeNever();
    expectTypeOf<Extract<RequestResult<'resources/read'>, InputRequiredResult>>().not.toBeNever();
    expectTypeOf<Extract<RequestResult<'tools/list'>, InputRequiredResult>>().toBeNever();
  });

  it('an InputRequest carries the params the map gives its method', () => {
    type Agrees<R> = R extends { method: infer M extends keyof ServerRequests; params?: infer P }
      ? P extends RequestParams<M> | undefined
        ? true
        : false
      : false;
    expectTypeOf<Agrees<InputRequest>>().toEqualTypeOf<true>();
  });
});
