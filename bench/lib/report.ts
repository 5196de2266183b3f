/** Small helpers every bench shares: flags, percentiles, aligned tables and PASS/MISS lines. */
import os from 'node:os';

/** `--name value` from argv, or undefined. */
export const flagValue = (argv: readonly string[], name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};

export const hasFlag = (argv: readonly string[], name: string): boolean =>
  argv.includes(`--${name}`);

/** A positive number flag (underscores allowed: `--messages 1_000_000`). */
export const numberFlag = (argv: readonly string[], name: string, fallback: number): number => {
  const raw = flagValue(argv, name);
  if (raw === undefined) return fallback;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
};

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
};

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** The median (the mean of the two middle values for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const summarize = (samples: readonly number[]): Summary => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean,
    max: sorted[sorted.length - 1] ?? NaN,
  };
};

/** A number with a sensible number of digits for a table. */
export const fmt = (n: number, digits?: number): string => {
  if (!Number.isFinite(n)) return String(n);
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  return n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
};

/** `a / b` as "1.23×", or "n/a". */
export const ratio = (a: number, b: number): string =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${fmt(a / b, 2)}×` : 'n/a';

export const mib = (kib: number): string => `${fmt(kib / 1024, 1)} MiB`;

/** Left-aligned first column, right-aligned others. */
export const table = (headers: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};

export interface Verdict {
  target: string;
  measured: string;
  pass: boolean;
}

/** One summary line per target; benches never fail the process on a MISS. */
export const verdictLines = (bench: string, verdicts: readonly Verdict[]): string =>
  verdicts
    .map((v) => `${v.pass ? 'PASS' : 'MISS'}  ${bench}: ${v.target} — measured ${v.measured}`)
    .join('\n');

export const section = (title: string): string => `\n## ${title}\n`;

/** Wall-clock milliseconds of a synchronous or async function. */
export const timeMs = async <T>(work: () => T | Promise<T>): Promise<{ ms: number; value: T }> => {
  const t0 = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, value };
};

/** What else is running: the machine's load average, to read noisy numbers with. */
export const machineLine = (): string => {
  const [l1, l5] = os.loadavg();
  return `machine: ${os.cpus().length} cores, ${mib(os.totalmem() / 1024)} RAM, load average ${fmt(l1, 2)} (1 min) ${fmt(l5, 2)} (5 min), node ${process.version}`;
};
