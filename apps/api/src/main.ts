import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { CommandBus } from '@nestjs/cqrs';
import { ConfigError, readConfig, startTracing, SweepRetention } from '@arbor/application';

const main = async (): Promise<void> => {
  let config;
  try {
    config = readConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`arbor: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  // OpenTelemetry traces when the OTEL_* variables ask for them (before the app, so every span
  // has its provider); flushed when the process is asked to stop.
  const stopTracing = await startTracing(process.env, (line) => console.warn(`arbor: ${line}`));
  if (stopTracing !== null) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.prependOnceListener(signal, () => void stopTracing().catch(() => undefined));
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  // The retention sweeper: every ARBOR_RETENTION_SWEEP_MS (default 1 h; 0: off), the tenants'
  // retention is applied through the same erasure path as DELETE (one sweep at a time).
  const every = config.retentionSweepMs ?? 0;
  if (every > 0) {
    const retention = new Logger('Retention');
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      app
        .get(CommandBus)
        .execute(new SweepRetention('retention'))
        .then((r) => {
          if (r.erased.length > 0) retention.log(`erased ${r.erased.length} conversation(s)`);
        })
        .catch((e: unknown) => retention.error(`sweep failed: ${String(e)}`))
        .finally(() => {
          running = false;
        });
    }, every);
    timer.unref();
  }
  console.log(
    `arbor listening on http://${config.host}:${config.port} (store: ${
      config.eventStoreConnectionString ? 'eventstoredb' : `sqlite in ${config.dataDir}`
    }; docs at /docs)`,
  );
};

void main();
