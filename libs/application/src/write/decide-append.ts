import { type ExpectedRevision, WrongExpectedVersionError } from '@arbor/event-store';
import { AppError } from '../errors';

/** How often a write is decided again after another writer won the append. */
export const MAX_ATTEMPTS = 3;

/** The revision an append expects, from the revision the state was decided on (-1: no stream). */
export const expectedRevisionOf = (revision: number): ExpectedRevision =>
  revision < 0 ? 'no_stream' : BigInt(revision);

/**
 * The one write path every stream takes (conversations, tenants, keys, settings): `attempt` loads
 * fresh state, decides, and appends at the revision it decided on. When another writer appended
 * first the store answers WrongExpectedVersionError; `onConflict` drops what is stale (it may
 * also throw: a fork id taken by someone else is not a race to retry) and the attempt runs again
 * on fresh state, up to MAX_ATTEMPTS times, then `concurrency_conflict`.
 */
export const decideAndAppend = async <T>(
  attempt: () => Promise<T>,
  onConflict: (error: WrongExpectedVersionError) => void = () => undefined,
): Promise<T> => {
  for (let n = 0; n < MAX_ATTEMPTS; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      onConflict(e);
    }
  }
  throw new AppError('concurrency_conflict', 'Concurrent writers kept winning; retry.');
};
