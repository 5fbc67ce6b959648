// Order lookup for the customer-service agent of `agentforge demo`. Served over Streamable HTTP
// in the demo: `node examples/customer-service/orders.mjs --http --port 0`.
import { McpServer } from 'agentforge/server';
import { isMain, serve } from '../serve.mjs';
import { ORDERS } from './data.mjs';

export function createOrdersServer() {
  const server = new McpServer({ name: 'orders-server', version: '1.0.0' });
  server.registerTool(
    'get_order',
    {
      description: 'Look up an order by its order id: status, items, total and tracking number',
      inputSchema: {
        type: 'object',
        properties: { orderId: { type: 'string', description: 'The order id, e.g. 12345' } },
        required: ['orderId'],
      },
      annotations: { readOnlyHint: true },
    },
    ({ orderId }) => {
      const order = ORDERS[String(orderId)];
      if (!order) return { content: [{ type: 'text', text: `No order ${orderId}.` }], isError: true };
      return { content: [{ type: 'text', text: JSON.stringify(order) }], structuredContent: order };
    },
  );
  server.registerTool(
    'list_orders',
    {
      description: 'List the ids and statuses of all orders of the customer',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
    () => {
      const orders = Object.values(ORDERS).map(({ orderId, status }) => ({ orderId, status }));
      return { content: [{ type: 'text', text: JSON.stringify(orders) }], structuredContent: { orders } };
    },
  );
  return server;
}

if (isMain(import.meta.url)) await serve(createOrdersServer());
