/** Why a suspension could not be claimed (@parley/runtime SuspensionStore.claim); it changed nothing. */
export type ClaimRefusal = 'unknown' | 'expired' | 'already_resumed' | 'timed_out';
