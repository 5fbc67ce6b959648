/**
 * The conformance "everything" server: the tools, resources and prompts the official suite's server scenarios
 * call (names and shapes from the server scenarios of @modelcontextprotocol/conformance).
 * `node build/conformance/server-fixture.js` serves Streamable HTTP on 127.0.0.1:$PORT/mcp;
 * `--stdio` serves both eras on stdin/stdout instead.
 */
import { pathToFileURL } from 'node:url';
import type { JSONObject } from '../mcp/types.js';
import { McpServer } from '../server/index.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { RED_PIXEL_PNG, contentTools, schemaTools, utilityTools } from './server-fixture-content.js';
import {
  enumElicitationTools,
  legacyInputTools,
  mrtrCompositeTools,
  mrtrTools,
  statelessProbeTools,
} from './server-fixture-input.js';
import { skillResources } from './server-fixture-skills.js';
import { taskTools } from './server-fixture-tasks.js';

function prompts(server: McpServer): void {
  const user = (content: JSONObject) => ({ role: 'user' as const, content: content as never });
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, () => ({
    messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })],
  }));
  const cities = ['paris', 'park', 'party', 'prague', 'porto', 'test', 'testing'];
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: { arg1: (value) => cities.filter((city) => city.startsWith(value.toLowerCase())) },
    },
    ({ arg1, arg2 }) => ({
      messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt with an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => ({
      messages: [
        user({
          type: 'resource',
          resource: {
            uri: String(resourceUri),
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        }),
        user({ type: 'text', text: 'Please process the embedded resource above.' }),
      ],
    }),
  );
}

function mediaPrompts(server: McpServer): void {
  const user = (content: JSONObject) => ({ role: 'user' as const, content: content as never });
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      user({ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }),
      user({ type: 'text', text: 'Please analyze the image above.' }),
    ],
  }));
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'MRTR on prompts/get' },
    async (_args, context) => {
      const answer = await context.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        },
        { key: 'user_context' },
      );
      return {
        messages: [user({ type: 'text', text: `Use this context: ${String(answer.content?.context)}` })],
      };
    },
  );
}

function resources(server: McpServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'Static text', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A PNG image', mimeType: 'image/png' },
    (uri) => ({
      contents: [{ uri, mimeType: 'image/png', blob: RED_PIXEL_PNG }],
    }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'Subscribable', mimeType: 'text/plain' },
    (uri) => ({
      contents: [
        { uri, mimeType: 'text/plain', text: `Watched resource read at ${new Date().toISOString()}` },
      ],
    }),
  );
  server.registerResourceTemplate(
    'template-data',
    'test://template/{id}/data',
    {
      description: 'Data by id',
      mimeType: 'application/json',
      complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
    },
    (uri, variables) => ({
      contents: [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({
            id: variables.id,
            templateTest: true,
            data: `Data for ID: ${String(variables.id)}`,
          }),
        },
      ],
    }),
  );
}

async function createFixtureServer(): Promise<McpServer> {
  const server = new McpServer({
    name: 'agentforge-conformance-server',
    version: PACKAGE_VERSION,
    instructions: 'The agentforge conformance fixture: test tools, resources and prompts.',
  });
  contentTools(server);
  schemaTools(server);
  utilityTools(server);
  legacyInputTools(server);
  enumElicitationTools(server);
  mrtrTools(server);
  mrtrCompositeTools(server);
  statelessProbeTools(server);
  taskTools(server);
  prompts(server);
  mediaPrompts(server);
  resources(server);
  await skillResources(server);
  return server;
}

async function main(): Promise<void> {
  const server = await createFixtureServer();
  if (process.argv.includes('--stdio')) {
    await server.serveStdio();
    return;
  }
  const port = Number(process.env.PORT ?? 3000);
  await server.listen({ port, host: '127.0.0.1', path: '/mcp' });
  console.error(`conformance server listening on http://127.0.0.1:${port}/mcp`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
