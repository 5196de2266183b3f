/** An error the CLI reports as `arbor: <code>: <detail>` with an exit code. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A usage mistake: exit code 2, with the command's help. */
export const usageError = (message: string): CliError => new CliError('usage', message, 2);

/** The code and detail of a Problem (embedded) or a problem+json body (HTTP). */
export const problemError = (code: unknown, detail: unknown, fallback: string): CliError =>
  new CliError(
    typeof code === 'string' ? code : 'error',
    typeof detail === 'string' && detail !== '' ? detail : fallback,
  );
