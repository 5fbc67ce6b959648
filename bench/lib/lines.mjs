// The raw lower bound's stdio framing, written the way a tuned newline-JSON implementation would be.
// Reading: each chunk is scanned once with indexOf; every complete line goes to one JSON.parse (a partial
// line waits in `rest`). Writing: every message written during one turn of the event loop is queued and
// flushed as one write from setImmediate, so N responses (or N requests) produced by one chunk cost one
// syscall and one wake-up of the peer. Beyond the parsed value and the serialised line, nothing is allocated
// per message.
export function onLines(stream, onLine) {
  let rest = '';
  stream.on('data', (chunk) => {
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      rest += chunk;
      return;
    }
    onLine(JSON.parse(rest === '' ? chunk.slice(0, nl) : rest + chunk.slice(0, nl)));
    rest = '';
    let start = nl + 1;
    nl = chunk.indexOf('\n', start);
    while (nl !== -1) {
      onLine(JSON.parse(chunk.slice(start, nl)));
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) rest = chunk.slice(start);
  });
}

// `send(text)` queues one serialised message; the queue goes out as one write at the end of the turn.
export function lineWriter(stream) {
  let queue = '';
  const flush = () => {
    const text = queue;
    queue = '';
    stream.write(text);
  };
  return (text) => {
    if (queue === '') setImmediate(flush);
    queue += `${text}\n`;
  };
}
