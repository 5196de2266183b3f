import { WrongExpectedVersionError } from '../errors';
import { type AppendResult, type CurrentRevision, type ExpectedRevision } from '../types';
import { type AppendLookup, decideAppend } from './append-decision';
import { type PreparedEvent } from './prepare-events';
import { sqliteCode } from './sqlite-errors';
import { type Statements } from './statements';

export const createLookup = (st: Statements): AppendLookup => ({
  byId: (eventId) => {
    const row = st.byId.get(eventId) as unknown[] | undefined;
    return (
      row && { stream: row[0] as string, revision: row[1] as bigint, position: row[2] as bigint }
    );
  },
  atRevision: (stream, revision) => {
    const row = st.atRevision.get(stream, revision) as unknown[] | undefined;
    return row && { eventId: row[0] as string, position: row[1] as bigint };
  },
});

const isUniqueViolation = (error: unknown): boolean =>
  sqliteCode(error) === 'SQLITE_CONSTRAINT_UNIQUE';

const emptyResult = (st: Statements, stream: string, current: CurrentRevision): AppendResult => {
  if (current === 'no_stream') return { nextExpectedRevision: -1n, position: -1n };
  const at = st.atRevision.get(stream, current) as unknown[];
  return { nextExpectedRevision: current, position: at[1] as bigint };
};

/** One append inside a BEGIN IMMEDIATE transaction (so the revision read cannot change). */
export const commitAppend = (
  st: Statements,
  lookup: AppendLookup,
  stream: string,
  events: readonly PreparedEvent[],
  expected: ExpectedRevision,
  created: number,
): AppendResult => {
  const last = st.streamRevision.get(stream) as bigint | undefined;
  const current: CurrentRevision = last === undefined ? 'no_stream' : last;
  const ids = events.map((event) => event.id);
  const decision = decideAppend(stream, expected, current, ids, lookup);
  if (decision.kind === 'conflict') throw new WrongExpectedVersionError(stream, expected, current);
  if (decision.kind === 'idempotent') {
    return { nextExpectedRevision: decision.lastRevision, position: decision.lastPosition };
  }
  if (events.length === 0) return emptyResult(st, stream, current);
  let revision = last === undefined ? -1n : last;
  let position = -1n;
  for (const event of events) {
    revision += 1n;
    try {
      const info = st.insert.run(
        stream,
        revision,
        event.id,
        event.type,
        event.data,
        event.metadata.metadata,
        created,
        event.metadata.format,
        event.metadata.chainPrev,
        event.metadata.chainHash,
      );
      position = info.lastInsertRowid as bigint;
    } catch (error) {
      if (isUniqueViolation(error)) throw new WrongExpectedVersionError(stream, expected, current);
      throw error;
    }
  }
  return { nextExpectedRevision: revision, position };
};
