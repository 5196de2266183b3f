/**
 * `arbor erase <conversation>` and `arbor sweep`: the same erasure commands as the HTTP routes,
 * dispatched on the command bus of the application booted on the data directory. Each prints a
 * summary.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  AppError,
  ApplicationModule,
  type ArborConfig,
  EraseConversation,
  ListTenants,
  readConfig,
  SweepRetention,
} from '@arbor/application';
import { LOCAL_TENANT_NAME } from './client/embedded';
import { CliError, problemError, usageError } from './errors';
import { createProgress, type GrowingProgress, type Progress } from './progress';

/** Ids one `arbor erase` takes (a limit on every input). */
const MAX_IDS = 10_000;

const withApp = async <T>(
  config: ArborConfig,
  work: (app: { commands: CommandBus; queries: QueryBus }) => Promise<T>,
): Promise<T> => {
  const app = await NestFactory.createApplicationContext(ApplicationModule.forRoot(config), {
    logger: false,
  });
  await app.init();
  try {
    return await work({ commands: app.get(CommandBus), queries: app.get(QueryBus) });
  } catch (e) {
    if (e instanceof AppError) throw problemError(e.code, e.detail, e.message);
    throw e;
  } finally {
    await app.close();
  }
};

type Options = Record<string, { type: 'string' }>;

const parse = (argv: string[], options: Options) => {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw usageError(e instanceof Error ? e.message : String(e));
  }
};

const envWith = (dataDir: unknown): NodeJS.ProcessEnv =>
  typeof dataDir === 'string' && dataDir !== ''
    ? { ...process.env, ARBOR_DATA_DIR: dataDir }
    : process.env;

export const eraseCommand = async (
  argv: string[],
  out: (text: string) => void,
): Promise<number> => {
  const { values, positionals } = parse(argv, {
    'data-dir': { type: 'string' },
    tenant: { type: 'string' },
    reason: { type: 'string' },
    forks: { type: 'string' },
  });
  if (positionals.length === 0) throw usageError('erase takes one or more conversation ids');
  if (positionals.length > MAX_IDS) throw usageError(`erase takes at most ${MAX_IDS} ids`);
  const forks = values.forks ?? 'keep';
  if (forks !== 'keep' && forks !== 'erase') throw usageError('--forks must be keep or erase');
  const config = readConfig(envWith(values['data-dir']));
  return withApp(config, async ({ commands, queries }) => {
    let tenantId = typeof values.tenant === 'string' ? values.tenant : undefined;
    if (tenantId === undefined) {
      const tenants = await queries.execute(new ListTenants());
      tenantId = tenants.find((t) => t.name === LOCAL_TENANT_NAME)?.id;
    }
    if (tenantId === undefined)
      throw new CliError('tenant_not_found', 'no local tenant; pass --tenant');
    const reason = typeof values.reason === 'string' ? values.reason : 'erased with arbor erase';
    // A bar once there is more than one conversation to erase (several ids, or a lineage):
    // each id's lineage is found when its turn comes, so the total grows as they are.
    let progress: GrowingProgress | null = null;
    let before = 0;
    let known = positionals.length;
    let erasedCount = 0;
    let keptCount = 0;
    for (const id of positionals) {
      const caller = { tenantId, keyId: 'cli-erase', actor: 'cli' };
      const r = await commands.execute(
        new EraseConversation(caller, id, reason, forks, (done, total) => {
          if (done === 1) known += total - 1;
          if (known > 1) {
            progress ??= createProgress('erase', known);
            progress.setTotal(known);
            progress.update(before + done);
          }
        }),
      );
      before += 1 + r.erasedForks.length;
      erasedCount += 1 + r.erasedForks.length;
      keptCount += r.keptForks.length;
      out(
        `erased ${r.conversationId} (tenant ${tenantId}) at ${r.erasedAt}: ${r.reason}\n` +
          `  forks erased: ${r.erasedForks.length}${r.erasedForks.map((f) => ` ${f.conversationId}`).join('')}\n` +
          `  forks kept: ${r.keptForks.length}${r.keptForks.map((f) => ` ${f}`).join('')}\n`,
      );
    }
    // The bar closes without repeating the summary: stdout carries it, once.
    (progress as Progress | null)?.finish();
    if (positionals.length > 1 || erasedCount > 1)
      out(`erase: ${erasedCount} conversation(s) erased, ${keptCount} fork(s) kept\n`);
    return 0;
  });
};

export const sweepCommand = async (
  argv: string[],
  out: (text: string) => void,
): Promise<number> => {
  const { values, positionals } = parse(argv, { 'data-dir': { type: 'string' } });
  if (positionals.length > 0) throw usageError('sweep takes no arguments');
  const config = readConfig(envWith(values['data-dir']));
  return withApp(config, async ({ commands }) => {
    let scan: Progress | null = null;
    let checked = 0;
    let progress: Progress | null = null;
    const r = await commands.execute(
      new SweepRetention('cli', {
        onScan: (done, total) => {
          checked = total;
          scan ??= createProgress('sweep: checking', total);
          scan.update(done);
        },
        onProgress: (done, total) => {
          progress ??= createProgress('sweep: erasing', total);
          progress.update(done);
        },
      }),
    );
    // The bars close without repeating the counts: the summary below (stdout) carries them, once.
    (scan as Progress | null)?.finish();
    (progress as Progress | null)?.finish();
    out(
      `retention: ${r.tenants} tenant(s) with a policy, ${checked} conversation(s) checked, ${r.erased.length} conversation(s) erased\n`,
    );
    for (const e of r.erased) out(`  ${e.tenantId}/${e.conversationId} idle ${e.idleDays} days\n`);
    return 0;
  });
};
