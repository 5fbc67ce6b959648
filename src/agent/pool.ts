/** Runs `tasks` with at most `limit` in flight; results keep the tasks' order. */
export async function runLimited<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  // The common turn has no more calls than the limit: start them all, no worker loop.
  if (tasks.length <= limit) return Promise.all(tasks.map((task) => task()));
  const results = new Array<T>(tasks.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < tasks.length) {
      const index = nextIndex++;
      results[index] = await tasks[index]!();
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, limit); i++) workers.push(worker());
  await Promise.all(workers);
  return results;
}
