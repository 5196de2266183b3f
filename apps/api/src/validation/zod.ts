import { CommitTurnBody } from '@arbor/contract';
import { parseTurnBody as parseTurn } from '@arbor/application';

/**
 * The HTTP edge validates with the contract's schemas through the application's helpers, which
 * raise `validation_failed` application errors (the problem filter answers them as 400).
 */
export { parseOrThrow } from '@arbor/application';

/** A `POST …/turns` body: the contract's `CommitTurnBody`, messages parsed by the domain. */
export const parseTurnBody = (body: unknown, maxImageBytes: number) =>
  parseTurn(CommitTurnBody, body, maxImageBytes);
