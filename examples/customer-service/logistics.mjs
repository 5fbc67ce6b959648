// Shipment tracking for the customer-service agent of `agentforge demo`. Over stdio in the demo.
import { McpServer } from 'agentforge/server';
import { isMain, serve } from '../serve.mjs';
import { SHIPMENTS } from './data.mjs';

export function createLogisticsServer() {
  const server = new McpServer({ name: 'logistics-server', version: '1.0.0' });
  server.registerTool(
    'track_shipment',
    {
      description:
        'Track a shipment by tracking number: carrier, where the parcel is and when it will arrive',
      inputSchema: {
        type: 'object',
        properties: {
          trackingNumber: { type: 'string', description: 'Carrier tracking number, e.g. SF1001' },
        },
        required: ['trackingNumber'],
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ trackingNumber }) => {
      const shipment = SHIPMENTS[String(trackingNumber)];
      if (!shipment)
        return { content: [{ type: 'text', text: `No shipment ${trackingNumber}.` }], isError: true };
      return { content: [{ type: 'text', text: JSON.stringify(shipment) }], structuredContent: shipment };
    },
  );
  return server;
}

if (isMain(import.meta.url)) await serve(createLogisticsServer());
