import { verifyStore, type VerifyReport } from '@arbor/audit';
import { readConfig } from '@arbor/application';
import { auditSecretOf, createEventStore } from '@arbor/application';
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
 * `arbor verify`: recompute every hash chain of the log from the events themselves, with the
 * audit secret of this data directory (ARBOR_AUDIT_SECRET or `<dataDir>/audit.key`).
 */
export const verifyCommand = async (out: (text: string) => void): Promise<number> => {
  const config = readConfig(process.env);
  const store = createEventStore(config);
  try {
    const head = await store.headPosition();
    const progress = createProgress('verify', head === null ? 0 : Number(head));
    const report = await verifyStore(store, auditSecretOf(config), {
      onProgress: ({ position }) => progress.update(Number(position)),
    });
    progress.finish(`${report.events} events`);
    out(renderVerifyReport(report));
    return report.ok ? 0 : TAMPERED_EXIT;
  } finally {
    await store.close();
  }
};
