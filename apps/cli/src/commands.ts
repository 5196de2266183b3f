/** import, export, tree and replay: parse their options, connect, run, print. */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { connect } from './client/connect';
import { type ArborClient } from './client/types';
import { CliError, usageError } from './errors';
import { exportSessionFile, renderExportReport } from './export-session';
import { runImport } from './import';
import { createProgress } from './progress';
import { renderHtml } from './render/html';
import { renderReplay, renderReproduction } from './render/replay';
import { renderImportSummary } from './render/summary';
import { renderTree } from './render/tree';

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Text for the terminal (escaped by the sink). */
  out: (text: string) => void;
  /** An export's content on stdout: as written when piped. */
  data?: (text: string) => void;
  err: (text: string) => void;
  stderr: NodeJS.WriteStream;
}

const CONNECTION = {
  url: { type: 'string' },
  key: { type: 'string' },
  'data-dir': { type: 'string' },
  tenant: { type: 'string' },
} as const;

type Parsed = ReturnType<typeof parseArgs>;

const parse = (
  argv: string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'],
): Parsed => {
  try {
    return parseArgs({
      args: argv,
      options: { ...CONNECTION, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw usageError(e instanceof Error ? e.message : String(e));
  }
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const onePositional = (p: Parsed, what: string): string => {
  if (p.positionals.length !== 1)
    throw usageError(`expected one ${what}, got ${p.positionals.length}`);
  return p.positionals[0];
};

const positiveInt = (v: unknown, name: string, fallback: number, min = 1): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${name} must be an integer ≥ ${min}`);
  return n;
};

const withClient = async <T>(
  p: Parsed,
  io: Io,
  work: (c: ArborClient) => Promise<T>,
): Promise<T> => {
  const client = await connect(
    {
      url: str(p.values.url),
      key: str(p.values.key),
      dataDir: str(p.values['data-dir']),
      tenant: str(p.values.tenant),
    },
    io.env,
    io.err,
  );
  try {
    return await work(client);
  } finally {
    await client.close();
  }
};

export const importCommand = async (argv: string[], io: Io): Promise<number> => {
  const p = parse(argv, {
    concurrency: { type: 'string' },
    report: { type: 'string' },
    verbose: { type: 'boolean' },
  });
  const target = onePositional(p, 'file or folder');
  if (!fs.existsSync(target)) throw new CliError('not_found', `no such file or folder: ${target}`);
  const concurrency = positiveInt(p.values.concurrency, 'concurrency', 4);
  return withClient(p, io, async (client) => {
    const summary = await runImport(target, {
      client,
      concurrency,
      progress: (total) => createProgress('import', total, io.stderr),
    });
    const report = str(p.values.report);
    if (report !== undefined)
      fs.writeFileSync(report, JSON.stringify(summary.reports, null, 2) + '\n');
    const where = client.mode === 'http' ? client.target : `the embedded store in ${client.target}`;
    io.out(renderImportSummary(summary, where, { verbose: p.values.verbose === true }) + '\n');
    return summary.failures.length > 0 ? 1 : 0;
  });
};

export const exportCommand = async (argv: string[], io: Io): Promise<number> => {
  const p = parse(argv, {
    format: { type: 'string' },
    scope: { type: 'string' },
    output: { type: 'string', short: 'o' },
    report: { type: 'string' },
  });
  const id = onePositional(p, 'conversation id');
  const format = str(p.values.format) ?? 'jsonl';
  if (
    format !== 'jsonl' &&
    format !== 'markdown' &&
    format !== 'html' &&
    format !== 'claude-code' &&
    format !== 'pi'
  )
    throw usageError('--format must be jsonl, markdown, html, claude-code or pi');
  const scopeArg = str(p.values.scope);
  if (scopeArg !== undefined && scopeArg !== 'tree' && scopeArg !== 'branch')
    throw usageError('--scope must be tree or branch');
  if (scopeArg !== undefined && format === 'html')
    throw usageError('--scope is for jsonl, markdown, claude-code and pi (html shows both)');
  const report = str(p.values.report);
  if (report !== undefined && format !== 'claude-code' && format !== 'pi')
    throw usageError('--report is for claude-code and pi');
  const scope = scopeArg ?? (format === 'markdown' ? 'branch' : 'tree');
  const text = await withClient(p, io, async (client) => {
    if (format === 'claude-code' || format === 'pi') {
      const out = await exportSessionFile(client, id, format, scope);
      if (report !== undefined)
        fs.writeFileSync(report, JSON.stringify(out.report, null, 2) + '\n');
      io.err(renderExportReport(out.report));
      return out.text;
    }
    if (format !== 'html') return client.exportText(id, format, scope);
    const [conversation, tree, messages] = await Promise.all([
      client.conversation(id),
      client.tree(id),
      client.messages(id, 'tree'),
    ]);
    return renderHtml(conversation, tree, messages);
  });
  const output = str(p.values.output);
  if (output === undefined) (io.data ?? io.out)(text);
  else fs.writeFileSync(output, text);
  return 0;
};

export const treeCommand = async (argv: string[], io: Io): Promise<number> => {
  const p = parse(argv, {
    expand: { type: 'boolean' },
    'full-ids': { type: 'boolean' },
    width: { type: 'string' },
  });
  const id = onePositional(p, 'conversation id');
  const width = positiveInt(p.values.width, 'width', 72, 10);
  const text = await withClient(p, io, async (client) => {
    const [conversation, tree, messages] = await Promise.all([
      client.conversation(id),
      client.tree(id),
      client.messages(id, 'tree'),
    ]);
    return renderTree(conversation, tree, messages, {
      expand: p.values.expand === true,
      fullIds: p.values['full-ids'] === true,
      width,
    });
  });
  io.out(text);
  return 0;
};

export const replayCommand = async (argv: string[], io: Io): Promise<number> => {
  const p = parse(argv, {
    revision: { type: 'string' },
    context: { type: 'string' },
    json: { type: 'boolean' },
    width: { type: 'string' },
  });
  const id = onePositional(p, 'conversation id');
  const contextId = str(p.values.context);
  if (contextId === undefined && p.values.revision === undefined)
    throw usageError('replay needs --revision <n> (or --context <contextId>)');
  const width = positiveInt(p.values.width, 'width', 72, 10);
  const json = p.values.json === true;
  return withClient(p, io, async (client) => {
    if (contextId !== undefined) {
      const r = await client.reproduce(id, contextId);
      if (
        p.values.revision !== undefined &&
        positiveInt(p.values.revision, 'revision', 0, 0) < r.revision
      )
        throw new CliError(
          'revision_not_found',
          `context ${contextId} was handed out at revision ${r.revision}, after --revision ${String(p.values.revision)}`,
        );
      io.out(json ? JSON.stringify(r, null, 2) + '\n' : renderReproduction(r));
      if (!r.match)
        io.err(
          `arbor: context ${contextId} does NOT reproduce: ${r.mismatch?.reason ?? 'mismatch'}`,
        );
      return r.match ? 0 : 3;
    }
    const r = await client.replay(id, positiveInt(p.values.revision, 'revision', 0, 0));
    io.out(json ? JSON.stringify(r, null, 2) + '\n' : renderReplay(r, { width }));
    return 0;
  });
};
