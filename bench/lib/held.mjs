// Shared by the held-request scripts: the bench server's echo and hold paths warmed before anything is measured,
// so what is measured is per-request state, not first-use code.
export async function warmHeldPaths(client) {
  const text = async (name, args) => (await client.call(name, args)).content[0].text;
  for (let i = 0; i < 3000; i++) await client.call('echo', { text: 'x' });
  const warmHeld = Array.from({ length: 100 }, () => client.call('hold', {}));
  while (Number(await text('count', {})) < 100);
  await text('release', {});
  await Promise.all(warmHeld);
  return text;
}
