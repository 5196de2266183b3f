import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_KEY_FILE, AUDIT_SECRET_ENV, verifyStore, type VerifyReport } from '@arbor/audit';
import { type ArborConfig, auditSecretOf, createEventStore } from '@arbor/application';
import { eventStoreDataPath } from '@arbor/event-store/sqlite';
import { CliError } from './errors';
import { createProgress } from './progress';

/** Exit code when the log does not verify (distinct from usage 2 and replay mismatch 3). */
export const TAMPERED_EXIT = 4;

/** A person-readable summary of a verification, one finding per line. */
export const renderVerifyReport = (r: VerifyReport): string => {
  const lines = [
    `${r.ok ? 'OK' : 'TAMPERED'}: ${r.events} events in ${r.streams} streams verified (${r.chained} chained) at ${r.eventsPerSecond} events/s`,
  ];
  if (r.unchained.count > 0) {
    lines.push(
      `warning: ${r.unchained.count} events in ${r.unchained.streams} streams carry no chain (written before the chain existed), from position ${String(r.unchained.firstPosition)}`,
    );
  }
  if (!r.ok) {
    const totals = Object.entries(r.totals)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    lines.push(`findings: ${totals}`);
    for (const f of r.findings) {
      const missing = f.missing ? ` (missing revisions ${f.missing.from}..${f.missing.to})` : '';
      lines.push(
        `  ${f.kind.padEnd(9)} position ${f.position} ${f.streamName}@${f.revision}${missing}: ${f.detail}`,
      );
    }
    if (r.findingsDropped > 0) lines.push(`  … and ${r.findingsDropped} more`);
  }
  return lines.join('\n') + '\n';
};

/**
 * What verify needs and must not create: the data directory, its SQLite log (unless the log is
 * EventStoreDB), and the audit secret (ARBOR_AUDIT_SECRET or `<dataDir>/audit.key`). Opening
 * the store would create the first two and a new secret the log was never chained with, and a
 * verification of that would say `OK: 0 events`.
 */
const checkVerifiable = (config: ArborConfig): void => {
  const dir = config.dataDir;
  const missing = (what: string) =>
    new CliError('not_found', `${what} (--data-dir or ARBOR_DATA_DIR names the data directory)`);
  if (!fs.existsSync(dir)) throw missing(`no data directory ${dir}`);
  if (config.eventStoreConnectionString === null && !fs.existsSync(eventStoreDataPath(dir)))
    throw missing(`no event log in ${dir} (${path.basename(eventStoreDataPath(dir))})`);
  if (config.auditSecret === null && !fs.existsSync(path.join(dir, AUDIT_KEY_FILE)))
    throw missing(
      `no audit secret: ${AUDIT_SECRET_ENV} is unset and ${dir} has no ${AUDIT_KEY_FILE}`,
    );
};

/**
 * `arbor verify`: recompute every hash chain of the log from the events themselves, with the
 * audit secret of this data directory (ARBOR_AUDIT_SECRET or `<dataDir>/audit.key`).
 */
export const verifyCommand = async (
  config: ArborConfig,
  out: (text: string) => void,
): Promise<number> => {
  checkVerifiable(config);
  const store = createEventStore(config);
  try {
    const head = await store.headPosition();
    const progress = createProgress('verify', head === null ? 0 : Number(head));
    const report = await verifyStore(store, auditSecretOf(config), {
      onProgress: ({ position }) => progress.update(Number(position)),
    });
    progress.finish(`${report.events} events (${config.dataDir})`);
    out(renderVerifyReport(report));
    return report.ok ? 0 : TAMPERED_EXIT;
  } finally {
    await store.close();
  }
};
