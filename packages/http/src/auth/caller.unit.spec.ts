import { describe, expect, it } from 'vitest';
import { type Caller, callerReaches, callerSoleProject } from './caller.js';

const caller = (projectIds: string[]): Caller => ({
  kind: 'jwt',
  subject: 'user_1',
  tenantId: 'tenant_a',
  projectIds,
  permissions: [],
});

describe('callerSoleProject', () => {
  it("is the caller's project when it reaches exactly one", () => {
    expect(callerSoleProject(caller(['proj_a']))).toBe('proj_a');
  });

  it('is undefined when the caller reaches none or several', () => {
    expect(callerSoleProject(caller([]))).toBeUndefined();
    expect(callerSoleProject(caller(['proj_a', 'proj_b']))).toBeUndefined();
  });

  it('is always a project the caller reaches', () => {
    for (const ids of [[], ['proj_a'], ['proj_a', 'proj_b']]) {
      const sole = callerSoleProject(caller(ids));
      if (sole !== undefined) expect(callerReaches(caller(ids), sole)).toBe(true);
    }
  });
});
