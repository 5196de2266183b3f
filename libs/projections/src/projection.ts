import type Database from 'better-sqlite3';
import { type AllFilter, type RecordedEvent } from '@arbor/event-store';

/** `apply` reads only the event and the tables (no clock): a rebuild writes the same bytes. */
export interface Projection {
  readonly name: string;
  migrate(db: Database.Database): void;
  /** Drops everything the projection owns; `migrate` is called again after. */
  drop(db: Database.Database): void;
  /** The tables (and their key columns) a canonical dump orders by, for rebuild comparison. */
  readonly tables: readonly { name: string; orderBy: string }[];
  prepare(db: Database.Database): (event: RecordedEvent) => void;
}

export interface ProjectionSet {
  projections: readonly Projection[];
  filter?: AllFilter;
}
