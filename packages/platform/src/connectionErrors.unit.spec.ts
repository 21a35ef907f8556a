import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConnectionError } from './connectionErrors.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionError', () => {
  it('recognises a database that is restarting, down or out of connections', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '08P01', '53300'])
      expect(isConnectionError(coded(code)), code).toBe(true);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])
      expect(isConnectionError(coded(code)), code).toBe(true);
  });

  it('recognises the uncoded messages of node-postgres, pg-pool and ioredis', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Client has encountered a connection error and is not queryable',
      'timeout exceeded when trying to connect',
      'Connection is closed.',
      'Command timed out',
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
    ])
      expect(isConnectionError(new Error(message)), message).toBe(true);
  });

  it('looks through causes and AggregateErrors (net.connect tries every address)', () => {
    expect(isConnectionError(new AggregateError([coded('ECONNREFUSED')], 'all failed'))).toBe(true);
    expect(isConnectionError(new Error('wrapped', { cause: coded('57P01') }))).toBe(true);
  });

  it("refuses what is the statement's or the request's fault", () => {
    for (const code of [
      '23505',
      '22021',
      '22P05',
      '42P01',
      '40001',
      '40P01',
      '57014',
      'ERR_INVALID_ARG_TYPE',
    ])
      expect(isConnectionError(coded(code)), code).toBe(false);
    expect(isConnectionError(new Error('boom'))).toBe(false);
    expect(isConnectionError(null)).toBe(false);
    expect(isConnectionError('ECONNREFUSED')).toBe(false);
  });

  it('is false for any error whose message and code say nothing of a connection', () => {
    const code = fc.stringMatching(/^[0-9A-Z]{5}$/).filter((c) => !/^(08|57P0|53[34]|58030)/.test(c));
    const message = fc
      .string()
      .filter((m) => !/^(Connection|Client|timeout|Query|Stream|Reached|Command)/.test(m));
    fc.assert(fc.property(code, message, (c, m) => !isConnectionError(coded(c, m))));
  });
});
