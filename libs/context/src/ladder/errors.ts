import type { RungReceipt } from './types';

/** What no rung can remove (calibrated tokens): see `CannotFitError`. */
export interface FitFloor {
  readonly systemTokens: number;
  readonly toolsTokens: number;
  /** The turn in progress, and the system and pinned messages before it. */
  readonly protectedTailTokens: number;
}

/**
 * Even every available rung cannot bring the request under the target: with drop allowed, only
 * when the system prompt, the tools and the protected tail alone are (about) over it. The API
 * answers `422 cannot_fit` with these numbers.
 */
export class CannotFitError extends Error {
  override readonly name = 'CannotFitError';
  readonly code = 'cannot_fit';

  constructor(
    /** The best (lowest) calibrated estimate reached. */
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

/**
 * A replay (`replayOnly`) would need a rung: with only the recorded decisions applied, the
 * request is over its target. A recorded assembly never is, so the inputs differ from the ones
 * that were recorded (other window, decisions, request or code).
 */
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
