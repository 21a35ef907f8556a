import { z } from 'zod';
import type { LlmMessage } from '../../providers/types.js';
import { FORWARDED_HISTORY_MAX, type ForwardedMessage } from './remoteAgent.js';

/** At most this many bytes (UTF-8, as JSON) of forwarded history reach the model: A2A ingress's cap. */
export const FORWARDED_HISTORY_MAX_BYTES = 65_536;

/**
 * A forwarded history as the turn request carries it (it crossed the job queue: parsed again here).
 * `agent` is the remote conversation's agent: the model's `assistant`.
 */
export const forwardedHistorySchema = z
  .array(z.object({ role: z.enum(['user', 'agent']), text: z.string() }))
  .max(FORWARDED_HISTORY_MAX * 10);

const key = (m: Pick<LlmMessage, 'role' | 'content'>) => `${m.role}\u0000${m.content}`;

/** The newest entries that fit FORWARDED_HISTORY_MAX and FORWARDED_HISTORY_MAX_BYTES, oldest first. */
function capped(entries: readonly ForwardedMessage[]): ForwardedMessage[] {
  const kept: ForwardedMessage[] = [];
  let bytes = 2;
  for (let i = entries.length - 1; i >= 0 && kept.length < FORWARDED_HISTORY_MAX; i--) {
    const entry = entries[i] as ForwardedMessage;
    bytes += Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;
    if (bytes > FORWARDED_HISTORY_MAX_BYTES) break;
    kept.push(entry);
  }
  return kept.reverse();
}

/**
 * The prior turns the model gets when a message arrives with a remote handoff's forwarded
 * conversation (A2A `message.metadata.history`, spec 001 §6): the forwarded messages first (the
 * conversation before this agent took part, as the handing-off side saw it), then the session's
 * own. A forwarded message the session already holds (same role and text: the sending side
 * forwards its whole conversation again with every message, this agent's earlier answers
 * included) is given once, as the session's; a retried message therefore adds nothing either.
 * Roles mapped (`agent` → `assistant`), blank messages left out, capped to the newest
 * FORWARDED_HISTORY_MAX entries within FORWARDED_HISTORY_MAX_BYTES. Nothing is recorded: the
 * session's events keep the history where it came (MessageReceived.channelMetadata.history).
 */
export function withForwardedHistory(own: readonly LlmMessage[], forwarded: unknown): LlmMessage[] {
  if (forwarded === undefined) return [...own];
  const parsed = forwardedHistorySchema.safeParse(forwarded);
  if (!parsed.success) return [...own];
  const remaining = new Map<string, number>();
  for (const m of own) remaining.set(key(m), (remaining.get(key(m)) ?? 0) + 1);
  const prior: LlmMessage[] = [];
  for (const entry of capped(parsed.data)) {
    if (entry.text.trim() === '') continue;
    const message: LlmMessage = { role: entry.role === 'agent' ? 'assistant' : 'user', content: entry.text };
    const left = remaining.get(key(message)) ?? 0;
    if (left > 0) {
      remaining.set(key(message), left - 1);
      continue;
    }
    prior.push(message);
  }
  return [...prior, ...own];
}
