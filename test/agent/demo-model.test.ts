import { describe, expect, it } from 'vitest';
import { DEMO_MODEL_LABEL, DemoModel } from '../../src/agent/demo-model.js';
import { type ChatMessage, type ToolDefinition, collectResponse } from '../../src/agent/model.js';

const tools: ToolDefinition[] = [
  {
    name: 'weather__get_weather',
    description: 'Get current weather for a city',
    inputSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
  {
    name: 'orders__get_order',
    description: 'Look up an order by its order id',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  },
  {
    name: 'logistics__track_shipment',
    description: 'Track a shipment: where the parcel is and when it will arrive',
    inputSchema: {
      type: 'object',
      properties: { trackingNumber: { type: 'string' } },
      required: ['trackingNumber'],
    },
  },
];

describe('DemoModel (offline, rule-based)', () => {
  it('calls the tools whose names the task mentions, with arguments taken from the task', async () => {
    const model = new DemoModel();
    const task: ChatMessage = {
      role: 'user',
      content: 'Where is order 12345, when will it arrive, and the weather in New York?',
    };
    const first = await model.generate({ messages: [task], tools });
    expect(first.stopReason).toBe('tool_calls');
    expect(first.message.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['weather__get_weather', { location: 'New York' }],
      ['orders__get_order', { orderId: '12345' }],
    ]);
    // Then it chains on what it learned (a tracking number the task did not contain), then answers.
    const history: ChatMessage[] = [
      task,
      first.message,
      { role: 'tool', toolCallId: 'a', name: 'weather__get_weather', content: 'New York: 20°C, clear' },
      {
        role: 'tool',
        toolCallId: 'b',
        name: 'orders__get_order',
        content: '{"orderId":"12345","trackingNumber":"SF1001"}',
      },
    ];
    const second = await model.generate({ messages: history, tools });
    expect(second.message.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['logistics__track_shipment', { trackingNumber: 'SF1001' }],
    ]);
    const streamed = await collectResponse(
      model.stream({
        messages: [
          ...history,
          second.message,
          { role: 'tool', toolCallId: 'c', name: 'logistics__track_shipment', content: 'in transit' },
        ],
        tools,
      }),
    );
    expect(streamed.stopReason).toBe('stop');
    expect(streamed.message.content.startsWith(`[${DEMO_MODEL_LABEL}]`)).toBe(true);
    expect(streamed.message.content).toContain('- logistics__track_shipment: in transit');
  });

  it('says plainly when no tool matches', async () => {
    const response = await new DemoModel().generate({
      messages: [{ role: 'user', content: 'Tell me a joke' }],
      tools,
    });
    expect(response.message.toolCalls).toEqual([]);
    expect(response.message.content).toContain('No tool matched the task');
  });
});
