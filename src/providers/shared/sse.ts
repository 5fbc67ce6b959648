import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ModelError } from '../../agent/model.js';
import type { OpenResponse } from './http.js';

/** One event larger than this is hostile (the biggest legitimate chunk is a whole tool call). */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/**
 * Yields the server-sent events of an accepted streaming response (WHATWG HTML section 9.2 event stream
 * format, parsed by eventsource-parser). Each chunk restarts the idle deadline; the deadline is disposed
 * and the body released when the consumer stops, finishes or fails.
 */
export async function* readEvents(provider: string, open: OpenResponse): AsyncGenerator<EventSourceMessage> {
  const { response, deadline } = open;
  const queue: EventSourceMessage[] = [];
  let parseError: Error | undefined;
  const parser = createParser({
    onEvent: (event) => queue.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') parseError = error;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  if (!response.body) throw new ModelError(provider, 'invalid_response', 'streaming response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw deadline.failure(provider, error);
      }
      if (chunk.done) {
        parser.feed(decoder.decode());
        parser.reset({ consume: true });
      } else {
        deadline.touch();
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      if (parseError) throw new ModelError(provider, 'invalid_response', parseError.message);
      while (queue.length > 0) {
        yield queue.shift()!;
        deadline.touch(); // time the consumer spent is not the server's silence
      }
      if (chunk.done) return;
    }
  } finally {
    deadline.dispose();
    reader.cancel().catch(() => {});
  }
}

/** Parses an event's JSON data, naming the provider when it is malformed. */
export function eventJson(provider: string, event: EventSourceMessage): any {
  try {
    return JSON.parse(event.data);
  } catch {
    throw new ModelError(
      provider,
      'invalid_response',
      `stream event is not JSON: ${event.data.slice(0, 200)}`,
    );
  }
}

/** An `{error}` object sent inside an event stream (after a 200, so no status applies). */
export function streamError(provider: string, error: any): ModelError {
  const message = typeof error?.message === 'string' ? error.message : JSON.stringify(error);
  return new ModelError(provider, 'http', `stream error: ${message}`, { body: error });
}
