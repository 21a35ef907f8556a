import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRoomTokenInput, type RoomTokenInputField } from './roomTokenInput.js';

const valid = { sessionId: 'ses_1', projectId: 'proj_1', agentName: 'billing-bot', deploymentId: 'dep_2' };
const idChar = fc.constantFrom(...'abcXYZ019_-'.split(''));
const ident = (max: number) => fc.string({ unit: idChar, minLength: 1, maxLength: max });

const failure = (body: unknown) => {
  const result = parseRoomTokenInput(body);
  return result.ok ? null : result.field;
};

describe('parseRoomTokenInput (spec 001 §4.5)', () => {
  it('accepts every well-formed body and returns exactly its fields', () => {
    fc.assert(
      fc.property(
        ident(128),
        ident(128),
        fc.option(ident(64), { nil: undefined }),
        fc.option(ident(128), { nil: undefined }),
        (sessionId, projectId, agentName, deploymentId) => {
          const body = { sessionId, projectId, agentName, deploymentId, extra: 1 };
          const result = parseRoomTokenInput(body);
          expect(result).toEqual({
            ok: true,
            input: {
              sessionId,
              projectId,
              ...(agentName === undefined ? {} : { agentName }),
              ...(deploymentId === undefined ? {} : { deploymentId }),
            },
          });
        },
      ),
    );
  });

  it.each<[RoomTokenInputField, number]>([
    ['sessionId', 128],
    ['projectId', 128],
    ['agentName', 64],
    ['deploymentId', 128],
  ])('refuses %s over %i characters, empty, of another type or with other characters', (field, max) => {
    expect(failure({ ...valid, [field]: 'a'.repeat(max) })).toBeNull();
    for (const bad of ['a'.repeat(max + 1), '', 'a b', 'a/b', 'é', 'a.b', 7, true, ['a'], { a: 1 }]) {
      expect({ bad, field: failure({ ...valid, [field]: bad }) }).toEqual({ bad, field });
    }
  });

  it('requires sessionId and projectId, not agentName or deploymentId (null means absent for those)', () => {
    const { sessionId: _s, ...noSession } = valid;
    const { projectId: _p, ...noProject } = valid;
    expect(failure(noSession)).toBe('sessionId');
    expect(failure(noProject)).toBe('projectId');
    expect(failure({ ...valid, sessionId: null })).toBe('sessionId');
    expect(failure({ sessionId: 's', projectId: 'p', agentName: null, deploymentId: null })).toBeNull();
    for (const body of [undefined, null, 'x', [valid]]) expect(failure(body)).toBe('sessionId');
  });

  it('reports the first bad field in the order sessionId, projectId, agentName, deploymentId', () => {
    expect(failure({ sessionId: '', projectId: '', agentName: '' })).toBe('sessionId');
    expect(failure({ sessionId: 's', projectId: '', agentName: '' })).toBe('projectId');
    expect(failure({ sessionId: 's', projectId: 'p', agentName: '', deploymentId: '' })).toBe('agentName');
  });
});
