import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { isParleyError, ParleyError } from './errors.js';
import { MigrationError } from './migrations.js';

describe('isParleyError', () => {
  class Named extends ParleyError {
    override readonly name = 'SomethingElse';
    constructor() {
      super('SOME_CODE', 409, 'x');
    }
  }

  it('matches by code, whatever the class or its name', () => {
    expect(isParleyError(new Named(), 'SOME_CODE')).toBe(true);
    expect(isParleyError(new ParleyError('SOME_CODE', 500, 'y'), 'OTHER', 'SOME_CODE')).toBe(true);
    expect(isParleyError(new Named(), 'OTHER')).toBe(false);
  });

  it('with no codes matches any ParleyError and nothing else', () => {
    expect(isParleyError(new Named())).toBe(true);
    const lookalike = Object.assign(new Error('z'), { code: 'SOME_CODE', name: 'ParleyError' });
    expect(isParleyError(lookalike, 'SOME_CODE')).toBe(false);
    expect(isParleyError('SOME_CODE')).toBe(false);
  });

  it("is how platform's own errors are told apart", () => {
    expect(isParleyError(new ConfigError(['X: bad']), 'CONFIG_INVALID')).toBe(true);
    expect(isParleyError(new MigrationError('m'), 'MIGRATION_FAILED')).toBe(true);
    expect(new MigrationError('m').name).toBe('MigrationError');
  });
});
