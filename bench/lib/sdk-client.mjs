// The bench's client interface over an official SDK Client (v1 and v2 share these method names).
export function wrapSdkClient(client, transport) {
  return {
    pid: transport.pid ?? undefined,
    call: (name, args) => client.callTool({ name, arguments: args }),
    list: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}
