// The raw lower bound's stdio framing, written the way a tuned newline-JSON implementation would be.
// Reading: each chunk is scanned once with indexOf; every complete line goes to one JSON.parse (a partial
// line waits in `rest`). Writing: every message written during one turn of the event loop is queued and
// flushed as one write from setImmediate, or as soon as 8 KiB are queued, so N responses (or N requests)
// produced by one chunk cost one syscall and one wake-up of the peer per 8 KiB. Beyond the parsed value and
// the serialised line, nothing is allocated per message.
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

// A turn's queue goes out as soon as it holds this many characters, as agentforge's stdio writer does: when one
// turn makes many messages, the peer (on the other core) starts on the first ones while the rest are made.
const SLICE_CHARS = 8 * 1024;

// `send(text)` queues one serialised message; the queue goes out as one write at the end of the turn, or
// at once when it is full.
export function lineWriter(stream) {
  let queue = '';
  const flush = () => {
    if (queue === '') return;
    const text = queue;
    queue = '';
    stream.write(text);
  };
  return (text) => {
    if (queue === '') setImmediate(flush);
    queue += `${text}\n`;
    if (queue.length >= SLICE_CHARS) flush();
  };
}
