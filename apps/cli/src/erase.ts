/**
 * `arbor erase <conversation>` and `arbor sweep`: erasure through the same application path as
 * the HTTP routes (ErasureService), embedded on the data directory. Each prints a summary.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { type EventStore } from '@arbor/event-store';
import {
  AppError,
  ApplicationModule,
  type ArborConfig,
  EVENT_STORE,
  ErasureService,
  readConfig,
  TenantDirectoryService,
} from '@arbor/application';
import { LOCAL_TENANT_NAME, tenantsNamed } from './client/embedded';
import { CliError, problemError, usageError } from './errors';
import { createProgress } from './progress';

const withApp = async <T>(
  config: ArborConfig,
  work: (app: {
    erasure: ErasureService;
    directory: TenantDirectoryService;
    store: EventStore;
  }) => Promise<T>,
): Promise<T> => {
  const app = await NestFactory.createApplicationContext(ApplicationModule.forRoot(config), {
    logger: false,
  });
  await app.init();
  try {
    return await work({
      erasure: app.get(ErasureService),
      directory: app.get(TenantDirectoryService),
      store: app.get<EventStore>(EVENT_STORE),
    });
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
  if (positionals.length !== 1) throw usageError('erase takes one conversation id');
  const forks = values.forks ?? 'keep';
  if (forks !== 'keep' && forks !== 'erase') throw usageError('--forks must be keep or erase');
  const config = readConfig(envWith(values['data-dir']));
  return withApp(config, async ({ erasure, store }) => {
    let tenantId = typeof values.tenant === 'string' ? values.tenant : undefined;
    if (tenantId === undefined) [tenantId] = await tenantsNamed(store, LOCAL_TENANT_NAME);
    if (tenantId === undefined)
      throw new CliError('tenant_not_found', 'no local tenant; pass --tenant');
    const r = await erasure.eraseConversation(
      { tenantId, keyId: 'cli-erase', actor: 'cli' },
      positionals[0],
      {
        reason: typeof values.reason === 'string' ? values.reason : 'erased with arbor erase',
        forks,
      },
    );
    out(
      `erased ${r.conversationId} (tenant ${tenantId}) at ${r.erasedAt}: ${r.reason}\n` +
        `  forks erased: ${r.erasedForks.length}${r.erasedForks.map((f) => ` ${f.conversationId}`).join('')}\n` +
        `  forks kept: ${r.keptForks.length}${r.keptForks.map((f) => ` ${f}`).join('')}\n`,
    );
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
  return withApp(config, async ({ erasure }) => {
    let progress: ReturnType<typeof createProgress> | null = null;
    const r = await erasure.sweep({
      actor: 'cli',
      onProgress: (done, total) => {
        progress ??= createProgress('sweep', total);
        progress.update(done);
      },
    });
    (progress as ReturnType<typeof createProgress> | null)?.finish(`${r.erased.length} erased`);
    out(
      `retention: ${r.tenants} tenant(s) with a policy, ${r.erased.length} conversation(s) erased\n`,
    );
    for (const e of r.erased) out(`  ${e.tenantId}/${e.conversationId} idle ${e.idleDays} days\n`);
    return 0;
  });
};
