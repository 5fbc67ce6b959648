// Benchmark server on agentforge (../dist): serveStdio() for stdio (both eras), listen() for Streamable HTTP
// (both eras on one endpoint: the client chooses modern or a legacy session).
import { McpServer } from '../../dist/server/index.js';
import {
  announcePort,
  count,
  echoSchema,
  fillerDescription,
  fillerName,
  fillerSchema,
  hold,
  orderSchema,
  parseServerArgs,
  release,
  textResult,
} from '../lib/tools.mjs';

const opts = parseServerArgs();
// --otel=installed|sdk: the tracing hook without an SDK, or with one exporting nowhere (bench/lib/otel.mjs);
// --otel=floor: the same SDK, driven by the least hook doing its work (bench/lib/otel-floor-hooks.mjs).
const tracing = opts.otel
  ? opts.otel === 'floor'
    ? (await import('../lib/otel-floor-hooks.mjs')).floorServer(
        await (await import('../lib/otel.mjs')).otelOptions('sdk', { registered: true }),
      )
    : (await import('../../dist/otel/index.js')).serverTracing(
        await (await import('../lib/otel.mjs')).otelOptions(opts.otel, { registered: true }),
      )
  : undefined;
const server = new McpServer(
  { name: 'bench-agentforge', version: '0.1.0' },
  tracing ? { aroundRequest: tracing } : {},
);
server.registerTool('echo', { description: 'Echo the text back', inputSchema: echoSchema }, ({ text }) =>
  textResult(text),
);
if (!opts.minimal) {
  server.registerTool('order', { description: 'Validate an order', inputSchema: orderSchema }, (args) =>
    textResult(String(args.items.length)),
  );
  server.registerTool('hold', { description: 'Hold until released', inputSchema: { type: 'object' } }, () =>
    hold(),
  );
  server.registerTool('release', { description: 'Release held calls', inputSchema: { type: 'object' } }, () =>
    release(),
  );
  server.registerTool(
    'count',
    {
      description: 'Count held calls',
      inputSchema: { type: 'object', properties: { gc: { type: 'boolean' } } },
    },
    (args) => count(args),
  );
}
for (let i = 0; i < opts.tools; i++) {
  server.registerTool(
    fillerName(i),
    { description: fillerDescription(i), inputSchema: fillerSchema },
    (args) => textResult(args.a),
  );
}

if (opts.transport === 'stdio') {
  await server.serveStdio();
} else {
  // --auth=<JWKS>: a protected endpoint (bearer JWTs verified against that key set, audience = its URL). Loaded
  // only then, as a server without authorization would not load it.
  const { JwtVerifier, bearerAuth } = opts.auth ? await import('../../dist/auth/server/index.js') : {};
  const auth = opts.auth
    ? (url) =>
        bearerAuth({
          resource: url,
          authorizationServers: [opts.auth.issuer],
          verifier: new JwtVerifier({ jwks: opts.auth.jwks, issuer: opts.auth.issuer }),
        })
    : undefined;
  const listening = await server.listen({ port: 0, host: '127.0.0.1', ...(auth ? { auth } : {}) });
  announcePort(listening.httpServer);
}
