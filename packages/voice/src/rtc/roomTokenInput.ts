/**
 * The body of the real-time room token call (spec 001 §4.5), validated exactly as the spec says,
 * each field failing with its own §7 error. "Alphanumeric" admits `_` and `-` as well: Parley's own
 * ids (`proj_…`, UUID session ids) use them.
 */
export interface RoomTokenInput {
  sessionId: string;
  projectId: string;
  agentName?: string | undefined;
  deploymentId?: string | undefined;
}

export type RoomTokenInputField = 'sessionId' | 'projectId' | 'agentName' | 'deploymentId';

export type RoomTokenInputResult =
  | { ok: true; input: RoomTokenInput }
  | { ok: false; field: RoomTokenInputField; message: string };

const ID = /^[A-Za-z0-9_-]+$/;

const LIMITS: Record<RoomTokenInputField, { max: number; required: boolean }> = {
  sessionId: { max: 128, required: true },
  projectId: { max: 128, required: true },
  agentName: { max: 64, required: false },
  deploymentId: { max: 128, required: false },
};

/** The first bad field in the spec's order (sessionId, projectId, agentName, deploymentId). */
export function parseRoomTokenInput(body: unknown): RoomTokenInputResult {
  const source = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  const values: Partial<Record<RoomTokenInputField, string>> = {};
  for (const field of Object.keys(LIMITS) as RoomTokenInputField[]) {
    const { max, required } = LIMITS[field];
    const value = (source as Record<string, unknown>)[field];
    if (value === undefined || (value === null && !required)) {
      if (required) return { ok: false, field, message: `${field} is required` };
      continue;
    }
    if (typeof value !== 'string' || value.length === 0 || !ID.test(value)) {
      return {
        ok: false,
        field,
        message: `${field} must be letters, digits, "_" or "-" (1 to ${max} characters)`,
      };
    }
    if (value.length > max)
      return { ok: false, field, message: `${field} must be at most ${max} characters` };
    values[field] = value;
  }
  return {
    ok: true,
    input: {
      sessionId: values.sessionId as string,
      projectId: values.projectId as string,
      ...(values.agentName === undefined ? {} : { agentName: values.agentName }),
      ...(values.deploymentId === undefined ? {} : { deploymentId: values.deploymentId }),
    },
  };
}
