import { ParleyError } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { FINAL_TURN_CODES, isFinalTurnError } from './processor.js';

describe('isFinalTurnError', () => {
  it('matches the runtime errors a retry cannot cure by code, aborted turns included', () => {
    for (const code of ['PROVIDER_FAILED', 'TURN_ABORTED', 'AGENT_NOT_FOUND', 'PROJECT_NOT_FOUND']) {
      expect(isFinalTurnError(new ParleyError(code, 502, 'x'))).toBe(true);
    }
    expect(FINAL_TURN_CODES).toHaveLength(4);
  });

  it('never by class name: a look-alike Error is retried, so is any other code', () => {
    const named = Object.assign(new Error('x'), { name: 'ProviderFailedError' });
    expect(isFinalTurnError(named)).toBe(false);
    expect(isFinalTurnError(new ParleyError('SERVICE_UNAVAILABLE', 503, 'x'))).toBe(false);
    class Renamed extends ParleyError {
      override readonly name = 'SomethingElse';
    }
    expect(isFinalTurnError(new Renamed('AGENT_NOT_FOUND', 404, 'x'))).toBe(true);
  });
});
