// The bench's client interface over an official SDK Client (v1 and v2 share these method names). `callTool`
// sends one tools/call with the SDK's own signature and the given request options.

// The held cell keeps its first requests waiting while the SDK sends the rest, which can take longer than the
// SDKs' default request timeout of 60 s: those calls get a timeout beyond the cell's.
const HELD_OPTIONS = { timeout: 600_000 };

export function wrapSdkClient(client, transport, callTool) {
  return {
    pid: transport.pid ?? undefined,
    call: (name, args) => callTool({ name, arguments: args }, name === 'hold' ? HELD_OPTIONS : undefined),
    list: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}
