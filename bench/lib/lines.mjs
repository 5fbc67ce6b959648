// Newline framing that scans each chunk once (a partial line waits in `rest`).
export function onLines(stream, onLine) {
  let rest = '';
  stream.on('data', (chunk) => {
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      rest += chunk;
      return;
    }
    onLine(rest + chunk.slice(0, nl));
    rest = '';
    start = nl + 1;
    nl = chunk.indexOf('\n', start);
    while (nl !== -1) {
      onLine(chunk.slice(start, nl));
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    rest = chunk.slice(start);
  });
}
