import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isParleyError } from './errors.js';
import { defineJob, type JobPayload, parseJobPayload } from './jobPayloads.js';

const job = defineJob('some-queue', z.object({ id: z.string(), count: z.int().min(0) }));

describe('job payloads', () => {
  it('gives the parsed data of a job its schema accepts', () => {
    const data: JobPayload<typeof job> = { id: 'a', count: 2 };
    expect(parseJobPayload(job, { id: 'j1', data }, { error: () => {} })).toEqual(data);
  });

  it('logs and throws INVALID_JOB_PAYLOAD for any other, naming fields but not values', () => {
    const logged: unknown[] = [];
    let thrown: unknown;
    try {
      parseJobPayload(
        job,
        { id: 'j2', data: { id: 'secret-value', count: -1 } },
        { error: (e: unknown) => void logged.push(e) },
      );
    } catch (err) {
      thrown = err;
    }
    expect(isParleyError(thrown, 'INVALID_JOB_PAYLOAD')).toBe(true);
    expect(logged).toEqual([
      { queue: 'some-queue', jobId: 'j2', issues: [{ path: 'count', message: expect.any(String) }] },
    ]);
    expect(JSON.stringify(logged) + String((thrown as Error).message)).not.toContain('secret-value');
    expect(() => parseJobPayload(job, { data: null }, { error: () => {} })).toThrow(/some-queue: \(root\)/);
  });
});
