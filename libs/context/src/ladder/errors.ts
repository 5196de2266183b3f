import type { RungReceipt } from './types';

export interface FitFloor {
  readonly systemTokens: number;
  readonly toolsTokens: number;
  readonly protectedTailTokens: number;
}

/** Even every rung cannot bring the request under the target; the API answers `422 cannot_fit`. */
export class CannotFitError extends Error {
  override readonly name = 'CannotFitError';
  readonly code = 'cannot_fit';

  constructor(
    readonly estimatedTokens: number,
    readonly targetTokens: number,
    readonly budgetTokens: number,
    readonly rungsTried: readonly RungReceipt[],
    readonly floor: FitFloor,
  ) {
    super(
      `the context cannot fit: ${estimatedTokens} estimated tokens > target ${targetTokens} ` +
        `(budget ${budgetTokens}; system ${floor.systemTokens}, tools ${floor.toolsTokens}, ` +
        `protected tail ${floor.protectedTailTokens}) after ` +
        `${rungsTried.map((r) => r.rung).join(', ') || 'no rung'}`,
    );
  }
}

/** A replay would need a rung: its inputs differ from the recorded ones (which never do). */
export class ReplayDivergenceError extends Error {
  override readonly name = 'ReplayDivergenceError';
  readonly code = 'replay_diverged';

  constructor(
    readonly estimatedTokens: number,
    readonly targetTokens: number,
  ) {
    super(
      `replay would need a rung: ${estimatedTokens} estimated tokens > target ${targetTokens} ` +
        'with only the recorded decisions applied',
    );
  }
}

/** The assembler produced a body its provider's checker rejects: a bug, never the caller's fault. */
export class AssemblyInvariantError extends Error {
  override readonly name = 'AssemblyInvariantError';

  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
