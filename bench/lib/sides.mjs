// The command line and the summary shared by the one-process tools that measure one half of a stdio pair
// (bench/stdio-server-side.mjs, bench/stdio-client-side.mjs): `<impl,impl,...> [inflight] [rounds] [turn]`.
export function sideArgs({ impls, rounds, turn }) {
  const [implsArg = impls, inflightArg = '64', roundsArg = String(rounds), turnArg = String(turn)] =
    process.argv.slice(2);
  const inflight = Number(inflightArg);
  return {
    specs: implsArg.split(','),
    inflight,
    rounds: Number(roundsArg),
    // Whole exchanges of `inflight` calls.
    turn: Math.max(inflight, Math.round(Number(turnArg) / inflight) * inflight),
  };
}

export function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/**
 * Warms each implementation with `warmup` calls, then they take turns of `turn` calls for `rounds` rounds
 * (order reversed every other round, so a machine whose load drifts weighs on all alike); each turn's process
 * CPU and wall time per call go to the implementation's `cpu` and `wall` lists.
 */
export async function takeTurns(impls, { rounds, turn, warmup, runTurn }) {
  for (const impl of impls) await runTurn(impl, warmup);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? impls : [...impls].reverse();
    for (const impl of order) {
      const cpu = process.cpuUsage();
      const wall = process.hrtime.bigint();
      await runTurn(impl, turn);
      const used = process.cpuUsage(cpu);
      (impl.wall ??= []).push(Number(process.hrtime.bigint() - wall) / 1000 / turn);
      (impl.cpu ??= []).push((used.user + used.system) / turn);
    }
  }
}
