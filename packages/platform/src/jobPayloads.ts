import type { z } from 'zod';
import { ParleyError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * A pg-boss queue and the zod schema of its jobs' data, declared together where the queue is named.
 * Senders give `JobPayload<typeof job>` (typed, no cast); the worker parses what it receives with
 * `parseJobPayload` (a message crossing a process boundary is parsed on receipt).
 */
export interface JobDefinition<S extends z.ZodType> {
  readonly queue: string;
  readonly schema: S;
}

export const defineJob = <S extends z.ZodType>(queue: string, schema: S): JobDefinition<S> => ({
  queue,
  schema,
});

/** What a sender puts in a job of `J`. */
export type JobPayload<J extends JobDefinition<z.ZodType>> = z.input<J['schema']>;
/** What a worker of `J` works with, once parsed. */
export type ParsedJobPayload<J extends JobDefinition<z.ZodType>> = z.output<J['schema']>;

/**
 * A job whose data its queue's schema refuses (a sender of another version, a job written by hand).
 * It fails that job (pg-boss records it and retries by the queue's policy); the worker goes on.
 * Names the fields and what is wrong with them, never their values.
 */
export class InvalidJobPayloadError extends ParleyError {
  override readonly name = 'InvalidJobPayloadError';
  constructor(
    readonly queue: string,
    readonly jobId: string | undefined,
    readonly issues: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(
      'INVALID_JOB_PAYLOAD',
      500,
      `job ${jobId ?? '(no id)'} of ${queue}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
      { details: { queue, jobId, issues } },
    );
  }
}

/**
 * The received job's data as its schema parses it; otherwise logs the refusal (an error: a sender
 * is broken) and throws InvalidJobPayloadError, which fails this job only.
 */
export function parseJobPayload<S extends z.ZodType>(
  job: JobDefinition<S>,
  received: { id?: string; data: unknown },
  logger: Pick<Logger, 'error'>,
): z.output<S> {
  const parsed = job.schema.safeParse(received.data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  logger.error({ queue: job.queue, jobId: received.id, issues }, 'job payload refused: the job fails');
  throw new InvalidJobPayloadError(job.queue, received.id, issues);
}
