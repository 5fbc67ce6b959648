// The gateway (../dist) over HTTP upstreams, for the gateway rows: `--upstreams=<base64url JSON of
// {name: url}>`; one upstream with `--exact` is served without the name prefix (its tools keep their names).
// An upstream given as "stdio" is the agentforge bench server, spawned by the gateway over stdio (the common
// mcp.json case).
import { parseConfig } from '../../dist/agent/index.js';
import { createGateway, listenGateway } from '../../dist/gateway/index.js';
import { serverCommand } from '../lib/proc.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const upstreams = JSON.parse(Buffer.from(arg('upstreams'), 'base64url').toString('utf8'));
const exact = process.argv.includes('--exact');
process.once('SIGTERM', () => process.exit(0));
const mcpServers = Object.fromEntries(
  Object.entries(upstreams).map(([name, url]) => [
    name,
    url === 'stdio' ? serverCommand('agentforge', ['--transport=stdio', '--minimal']) : { url, type: 'http' },
  ]),
);
const gateway = await createGateway({ config: parseConfig({ mcpServers }), prefix: !exact });
const listening = await listenGateway(gateway, { port: 0 });
process.stdout.write(`LISTENING ${listening.port}\n`);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
