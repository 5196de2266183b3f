/** Reads a V8 .cpuprofile (from `node --cpu-prof`) and says where the self time went. */
import fs from 'node:fs';
import path from 'node:path';
import { fmt, table } from './report';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string): string => {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const build = url.indexOf('/build/');
  if (build >= 0) return url.slice(build + '/build/'.length);
  return url.replace(/^file:\/\//, '');
};

/** Which part of the process a frame belongs to: a package, an Arbor lib, Node, or V8. */
export const areaOf = (frame: CallFrame): string => {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName.startsWith('(')) return functionName;
    return '(native)';
  }
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node (core)';
  const m = /\/(apps\/[^/]+|libs\/[^/]+)\//.exec(url);
  return m ? m[1] : shortUrl(url);
};

export interface ProfileSummary {
  totalMs: number;
  byArea: { area: string; ms: number }[];
  byFunction: { fn: string; area: string; ms: number }[];
}

export const summarizeProfile = (profile: CpuProfile): ProfileSummary => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const areas = new Map<string, number>();
  const fns = new Map<string, { area: string; us: number }>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const area = areaOf(frame);
    const fn = `${frame.functionName || '(anonymous)'}${
      frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''
    }`;
    total += us;
    areas.set(area, (areas.get(area) ?? 0) + us);
    const f = fns.get(fn) ?? { area, us: 0 };
    f.us += us;
    fns.set(fn, f);
  }
  return {
    totalMs: total / 1000,
    byArea: [...areas].map(([area, us]) => ({ area, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
    byFunction: [...fns]
      .map(([fn, f]) => ({ fn, area: f.area, ms: f.us / 1000 }))
      .sort((a, b) => b.ms - a.ms),
  };
};

/** The newest .cpuprofile in `dir`. */
export const latestProfile = (dir: string): string | null => {
  if (!fs.existsSync(dir)) return null;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
};

export const renderProfile = (file: string, top = 25): string => {
  const s = summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile);
  const pct = (ms: number) => `${fmt((100 * ms) / s.totalMs, 1)}%`;
  return [
    `profile ${path.relative(process.cwd(), file)}: ${fmt(s.totalMs)} ms sampled`,
    '',
    'self time by area',
    table(
      ['area', 'ms', 'share'],
      s.byArea.slice(0, 15).map((a) => [a.area, fmt(a.ms), pct(a.ms)]),
    ),
    '',
    `top ${top} functions by self time`,
    table(
      ['function', 'area', 'ms', 'share'],
      s.byFunction.slice(0, top).map((f) => [f.fn, f.area, fmt(f.ms), pct(f.ms)]),
    ),
  ].join('\n');
};

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node -r @swc-node/register bench/lib/cpuprofile.ts <file.cpuprofile>');
    process.exit(2);
  }
  console.log(renderProfile(file, Number(process.argv[3] ?? 25)));
}
