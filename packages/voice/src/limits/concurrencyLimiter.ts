/** What a voice call or a real-time room counts against: the tenant's calls, or its rooms. */
export type VoicePool = 'calls' | 'rooms';

export interface VoiceSlot {
  pool: VoicePool;
  /** The call or room (e.g. `call:<CallSid>`, `room:<roomName>`); admitting it again renews it. */
  member: string;
  limit: number;
}

export type AdmitDecision =
  | { admitted: true }
  | { admitted: false; pool: VoicePool; active: number; retryAfterMs: number };

/**
 * Concurrent voice calls and rooms per tenant (spec 001 §8). A slot is held until released (the
 * call's final status) or until `holdMs` passes (a lost callback never holds a slot forever).
 * `admit` takes every slot or none, atomically, so API replicas sharing one store never admit more
 * than each limit.
 */
export interface VoiceConcurrencyLimiter {
  admit(tenantId: string, slots: readonly VoiceSlot[], holdMs: number): Promise<AdmitDecision>;
  release(tenantId: string, pool: VoicePool, member: string): Promise<void>;
  /** Slots held now (for tests and metrics). */
  active(tenantId: string, pool: VoicePool): Promise<number>;
}
