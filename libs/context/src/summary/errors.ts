/**
 * What can go wrong when the summary rung asks a model. Every failure of the HTTP exchange is a
 * `SummaryProviderError`; a "too long" rejection is the subclass `SummaryTooLongError`, carrying
 * the provider's own numbers when its message is one `parseOverflowError` knows. With no key (or
 * no model) configured the rung is `SummaryUnavailableError` and nothing is sent.
 */
import type { OverflowNumbers } from '../overflow';

/** The rung cannot run at all: nothing is configured to call. */
export class SummaryUnavailableError extends Error {
  override readonly name: string = 'SummaryUnavailableError';

  constructor(readonly reason: string) {
    super(`summary rung unavailable: ${reason}`);
  }
}

/**
 * The provider refused or failed the request. `status` is the HTTP status, or 0 when no response
 * came back (`type` is then `timeout` or `network_error`); `type` is the provider's error type
 * (`rate_limit_error`, `server_error`, …) when its body names one.
 */
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
  /** The provider's measured input and limit, or null when its message did not say. */
  readonly overflow: OverflowNumbers | null;

  constructor(status: number, type: string, message: string, overflow: OverflowNumbers | null) {
    super(status, type, message);
    this.overflow = overflow;
  }
}
