import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/**
 * A progress bar with a rate, on stderr when it is a terminal; otherwise a
 * line every few seconds so that logs of long CLI work still show progress.
 */
export function createProgress(
  label: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | eta {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0, { rate: 0 });
    return {
      update(done, newTotal) {
        if (newTotal !== undefined) bar.setTotal(Math.max(newTotal, done, 1));
        bar.update(done, { rate: rate(done) });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  let last = 0;
  return {
    update(done, newTotal) {
      last = done;
      if (newTotal !== undefined) total = newTotal;
      if (Date.now() - lastLine < 2_000) return;
      lastLine = Date.now();
      stream.write(`${label}: ${done}/${total} events, ${rate(done)} events/s\n`);
    },
    stop: () =>
      stream.write(
        `${label}: ${last} events, ${rate(last)} events/s, done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      ),
  };
}
