// Rows of the scale-out cells (bench/lib/scale-out.mjs): agentforge only, with real redis-server and haproxy.
// The machine's core count is part of the label: two instances can only beat one when there are cores to
// spare beside the client, haproxy and Redis.
import os from 'node:os';

const cores = os.cpus().length;
const pick = (key) => (r) => r[key];

export const SCALE_OUT_ROWS = [
  {
    id: 'scale-out-1',
    label: `scale-out: stateless tools/call, 32 in flight, 1 instance behind haproxy (${cores} cores)`,
    cell: 'scale-out',
    spec: { scenario: 'scale-out', concurrency: 32, implsOnly: ['agentforge'] },
    metric: pick('rps1'),
    unit: 'calls/s',
    kind: 'throughput',
  },
  {
    id: 'scale-out-2',
    label: `  the same, 2 instances sharing Redis behind haproxy (${cores} cores)`,
    cell: 'scale-out',
    metric: pick('rps2'),
    unit: 'calls/s',
    kind: 'throughput',
  },
  {
    id: 'scale-out-speedup',
    label: '  2 instances / 1 instance',
    cell: 'scale-out',
    metric: pick('speedup'),
    unit: 'x',
    kind: 'throughput',
  },
  {
    id: 'redis-notify',
    label: 'Redis vs in-memory: added CPU (server + redis-server) per tools/call publishing on the bus',
    cell: 'redis-cost',
    spec: { scenario: 'redis-cost', implsOnly: ['agentforge'] },
    metric: pick('notifyExtraUs'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'redis-mrtr',
    label: '  added CPU per MRTR round trip with a one-time requestState (call + retry)',
    cell: 'redis-cost',
    metric: pick('mrtrExtraUs'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'redis-task-get',
    label: '  added CPU per tasks/get (task store read)',
    cell: 'redis-cost',
    metric: pick('taskGetExtraUs'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'redis-echo',
    label: '  added CPU per stateless tools/call that touches no shared state',
    cell: 'redis-cost',
    metric: pick('echoExtraUs'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'redis-base',
    label: '  for scale: server CPU per tools/call publishing on the in-memory bus',
    cell: 'redis-cost',
    metric: pick('notifyMemUs'),
    unit: 'us',
    kind: 'cost',
  },
];
