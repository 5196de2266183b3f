import type { OverflowNumbers } from '../overflow';

export class SummaryUnavailableError extends Error {
  override readonly name: string = 'SummaryUnavailableError';

  constructor(readonly reason: string) {
    super(`summary rung unavailable: ${reason}`);
  }
}

/** `status` 0 when no response came (`type` is then `timeout` or `network_error`). */
export class SummaryProviderError extends Error {
  override readonly name: string = 'SummaryProviderError';

  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** The provider said the request was longer than its window (the estimate undercounted). */
export class SummaryTooLongError extends SummaryProviderError {
  override readonly name: string = 'SummaryTooLongError';
  readonly overflow: OverflowNumbers | null;

  constructor(status: number, type: string, message: string, overflow: OverflowNumbers | null) {
    super(status, type, message);
    this.overflow = overflow;
  }
}
