// Refunds for the customer-service agent of `agentforge demo`. It moves money, so it says so
// (destructiveHint) and the demo config makes every call ask for approval. Over Streamable HTTP in the demo.
import { McpServer } from 'agentforge/server';
import { isMain, serve } from '../serve.mjs';
import { ORDERS } from './data.mjs';

export function createRefundsServer() {
  const server = new McpServer({ name: 'refunds-server', version: '1.0.0' });
  const refunds = new Map();
  server.registerTool(
    'request_refund',
    {
      description: 'Start a refund for an order; the money goes back to the original payment method',
      inputSchema: {
        type: 'object',
        properties: {
          orderId: { type: 'string', description: 'The order id' },
          reason: { type: 'string', description: 'Why the customer wants a refund' },
        },
        required: ['orderId', 'reason'],
      },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ orderId, reason }) => {
      const order = ORDERS[String(orderId)];
      if (!order) return { content: [{ type: 'text', text: `No order ${orderId}.` }], isError: true };
      const refund = refunds.get(order.orderId) ?? {
        refundId: `R-${order.orderId}`,
        orderId: order.orderId,
        amount: order.total,
        reason,
        status: 'pending',
      };
      refunds.set(order.orderId, refund);
      return { content: [{ type: 'text', text: JSON.stringify(refund) }], structuredContent: refund };
    },
  );
  server.registerTool(
    'get_refund_status',
    {
      description: 'The status of the refund of an order, if one was requested',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      annotations: { readOnlyHint: true },
    },
    ({ orderId }) => {
      const refund = refunds.get(String(orderId));
      const text = refund ? JSON.stringify(refund) : `No refund requested for order ${orderId}.`;
      return { content: [{ type: 'text', text }], ...(refund ? { structuredContent: refund } : {}) };
    },
  );
  return server;
}

if (isMain(import.meta.url)) await serve(createRefundsServer());
