/** A mistake in how a command was called: `parley: <message>` and exit code 2, no stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const isUsageError = (err: unknown): err is UsageError => err instanceof UsageError;
