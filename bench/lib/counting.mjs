// Work per call that does not depend on timing, for the bench's count scripts (agent-counts, call-counts,
// http-client-counts, http-server-counts): async resources by type and reactions run, from async_hooks, and
// bytes allocated, from V8's sampling heap profiler (objects a GC collected included).
import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';

/**
 * Runs `work` with an async hook on: how many resources of each of `types` it created (async_hooks names:
 * PROMISE, TickObject, Timeout, ...) and how many callbacks ran (`reactions`). The hook turns off V8's await
 * shortcut, so promise counts run high; compare them between implementations, not with zero.
 */
export async function countAsync(work, types = ['PROMISE']) {
  const counts = Object.fromEntries(types.map((type) => [type, 0]));
  let reactions = 0;
  const hook = createHook({
    init(_id, type) {
      if (type in counts) counts[type]++;
    },
    before() {
      reactions++;
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return { ...counts, reactions };
}

/** Bytes allocated while `work` runs, sampled every `samplingInterval` bytes. */
export async function bytesAllocated(work, samplingInterval = 256) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await work();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let bytes = 0;
  for (const sample of profile.samples) bytes += sample.size;
  return bytes;
}
