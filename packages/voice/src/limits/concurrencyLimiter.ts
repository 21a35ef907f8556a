/** What a voice call or a real-time room counts against: calls, or rooms. */
export type VoicePool = 'calls' | 'rooms';

/**
 * Whose slots a limit counts: the tenant's (calls; rooms when a per-tenant room limit is set), or
 * every tenant's together (the concurrent real-time voice rooms, global by spec 000 §8).
 */
export type VoiceScope = 'tenant' | 'global';

export interface VoiceSlot {
  pool: VoicePool;
  /** Default `tenant`. */
  scope?: VoiceScope;
  /** The call or room (e.g. `call:<CallSid>`, `room:<roomName>`); admitting it again renews it. */
  member: string;
  limit: number;
}

export type AdmitDecision =
  | { admitted: true }
  | { admitted: false; pool: VoicePool; scope: VoiceScope; active: number; retryAfterMs: number };

/**
 * Concurrent voice calls and rooms (spec 001 §8, spec 000 §8), per tenant or for the whole
 * deployment (VoiceScope). A slot is held until released (the call's final status) or until `holdMs`
 * passes (a lost callback never holds a slot forever). `admit` takes every slot or none, atomically,
 * so API replicas sharing one store never admit more than each limit.
 */
export interface VoiceConcurrencyLimiter {
  admit(tenantId: string, slots: readonly VoiceSlot[], holdMs: number): Promise<AdmitDecision>;
  release(tenantId: string, pool: VoicePool, member: string, scope?: VoiceScope): Promise<void>;
  /** Slots held now (for tests and metrics); `global`: every tenant's. */
  active(tenantId: string, pool: VoicePool, scope?: VoiceScope): Promise<number>;
}

/** The name of the set of slots a limit counts (`<pool>:<tenantId>`, or `<pool>` for a global one). */
export const slotSetName = (tenantId: string, pool: VoicePool, scope: VoiceScope = 'tenant'): string =>
  scope === 'global' ? pool : `${pool}:${tenantId}`;
