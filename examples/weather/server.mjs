// The demo's weather server: one tool, get_weather, which an agent host registers as
// `weather__get_weather`. Deterministic data, so the demo and the tests can check what the model saw.
//
//   node examples/weather/server.mjs            # stdio (what the demo does)
//   node examples/weather/server.mjs --http     # Streamable HTTP on a free port
import { McpServer } from 'agentforge/server';
import { isMain, serve } from '../serve.mjs';

const CITIES = {
  hangzhou: { location: 'Hangzhou', tempC: 26, condition: 'sunny' },
  beijing: { location: 'Beijing', tempC: 18, condition: 'cloudy' },
  shanghai: { location: 'Shanghai', tempC: 24, condition: 'light rain' },
  london: { location: 'London', tempC: 12, condition: 'drizzle' },
  'new york': { location: 'New York', tempC: 20, condition: 'clear' },
};

export function createWeatherServer() {
  const server = new McpServer({ name: 'weather-server', version: '2.1.0' });
  server.registerTool(
    'get_weather',
    {
      title: 'Current weather',
      description: 'Get current weather for a city',
      inputSchema: {
        type: 'object',
        properties: { location: { type: 'string', description: 'City name, e.g. Hangzhou' } },
        required: ['location'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          location: { type: 'string' },
          tempC: { type: 'number' },
          condition: { type: 'string' },
        },
        required: ['location', 'tempC', 'condition'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ location }) => {
      const weather = CITIES[String(location).trim().toLowerCase()];
      if (!weather) {
        // A tool execution error (isError), not a protocol error: the model can read it and try again.
        const known = Object.values(CITIES)
          .map((c) => c.location)
          .join(', ');
        return {
          content: [{ type: 'text', text: `Unknown city "${location}". Known cities: ${known}.` }],
          isError: true,
        };
      }
      return {
        content: [{ type: 'text', text: `${weather.location}: ${weather.tempC}°C, ${weather.condition}` }],
        structuredContent: weather,
      };
    },
  );
  return server;
}

if (isMain(import.meta.url)) await serve(createWeatherServer());
