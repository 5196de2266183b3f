/**
 * A progress bar for long CLI work, on stderr: redrawn in place on a TTY, a line every few
 * seconds otherwise (CI logs), and a closing line at the end: the summary given to `finish`, or
 * just `done` and the time where the command prints its summary on stdout itself (so it is not
 * printed twice).
 */
export interface Progress {
  update(done: number): void;
  finish(summary?: string): void;
}

/** A bar whose total may grow (work found on the way, e.g. a lineage's forks). */
export interface GrowingProgress extends Progress {
  setTotal(total: number): void;
}

export const createProgress = (
  label: string,
  initialTotal: number,
  stream: NodeJS.WriteStream = process.stderr,
): GrowingProgress => {
  let total = initialTotal;
  const started = Date.now();
  let lastDraw = 0;
  const tty = Boolean(stream.isTTY);
  const draw = (done: number, force = false): void => {
    const now = Date.now();
    if (!force && now - lastDraw < (tty ? 100 : 5000)) return;
    lastDraw = now;
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const secs = (now - started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    const width = 30;
    const bar = '█'.repeat(Math.round(ratio * width)).padEnd(width, '░');
    const line = `${label} ${bar} ${(ratio * 100).toFixed(0).padStart(3)}% ${done}/${total} (${rate}/s)`;
    stream.write(tty ? `\r${line}` : `${line}\n`);
  };
  return {
    update: (done) => draw(done),
    setTotal: (next) => {
      total = next;
    },
    finish(summary = 'done') {
      if (tty) stream.write('\r\x1b[2K');
      stream.write(`${label}: ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
};
