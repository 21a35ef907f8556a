import { z } from 'zod';
import { AGENT_PROVIDERS } from './providerNames.js';

export const PII_KINDS = ['email', 'phone', 'card'] as const;
export type PiiKind = (typeof PII_KINDS)[number];
/** `redact` replaces what was found (`[email]`, `[phone]`, `[card]`); `block` answers the blocked reply. */
export const piiActionSchema = z.enum(['off', 'redact', 'block']);
export type PiiAction = z.infer<typeof piiActionSchema>;

/**
 * Checks the turn engine applies around the model, per agent (docs/agents.md "Guardrails"); each
 * evaluation is a `guardrail_eval` trace event.
 */
export const agentGuardrailsSchema = z.strictObject({
  /** Case-insensitive terms that block the user's message (input guardrail `blocked_terms`). */
  blockedTerms: z.array(z.string().min(1).max(200)).max(100).optional(),
  /** Replies longer than this are cut (output guardrail `max_reply_chars`). */
  maxReplyChars: z.int().min(1).max(100_000).optional(),
  /** What the agent answers when a guardrail blocks; a fixed default otherwise. */
  blockedReply: z.string().min(1).max(1000).optional(),
  /** Personal data in the user's message (input) and the reply (output): e-mail, phone and card numbers. */
  pii: z
    .strictObject({
      input: piiActionSchema.default('off'),
      output: piiActionSchema.default('off'),
      kinds: z
        .array(z.enum(PII_KINDS))
        .min(1)
        .max(3)
        .default([...PII_KINDS]),
    })
    .optional(),
  /**
   * A model asked whether the text breaks the agent's policy (its own provider and model, recorded
   * in the ledger as source `guardrails`). `failOpen`: a failed check lets the text through.
   */
  model: z
    .strictObject({
      provider: z.enum(AGENT_PROVIDERS),
      model: z.string().min(1).max(200),
      policy: z.string().min(1).max(4000),
      stages: z
        .array(z.enum(['input', 'output']))
        .min(1)
        .default(['input']),
      failOpen: z.boolean().default(false),
    })
    .optional(),
});
export type AgentGuardrails = z.infer<typeof agentGuardrailsSchema>;
