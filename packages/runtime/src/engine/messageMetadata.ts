import { jsonObjectSchema } from '@parley/events';
import type { z } from 'zod';

/**
 * Turn-scoped message metadata (spec 001 §6, "A2A per-message metadata"): a JSON object a caller
 * attaches to one inbound message (A2A `message.metadata.messageMetadata`). It is recorded on that
 * turn's MessageReceived and readable only while that turn runs: in the agent's system prompt as
 * `{{session.messageMetadata.<path>}}` or its alias `{{message_metadata.<path>}}`. It never
 * becomes session state.
 */
export const MESSAGE_METADATA_LIMITS = Object.freeze({
  /** Serialized JSON size, in UTF-8 bytes. */
  maxBytes: 8192,
  /** Nesting depth of objects and arrays (the top-level object is depth 1). */
  maxDepth: 5,
  /** Key length (characters). */
  maxKeyLength: 64,
});

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null)
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

function keysWithin(value: unknown, max: number): boolean {
  if (Array.isArray(value)) return value.every((v) => keysWithin(v, max));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).every(([k, v]) => k.length >= 1 && k.length <= max && keysWithin(v, max));
  return true;
}

/** Validates turn-scoped message metadata: a JSON object within MESSAGE_METADATA_LIMITS. */
export const messageMetadataSchema = jsonObjectSchema
  .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= MESSAGE_METADATA_LIMITS.maxBytes, {
    message: `messageMetadata is at most ${MESSAGE_METADATA_LIMITS.maxBytes} bytes of JSON`,
  })
  .refine((value) => depthOf(value) <= MESSAGE_METADATA_LIMITS.maxDepth, {
    message: `messageMetadata nests at most ${MESSAGE_METADATA_LIMITS.maxDepth} levels`,
  })
  .refine((value) => keysWithin(value, MESSAGE_METADATA_LIMITS.maxKeyLength), {
    message: `messageMetadata keys are 1-${MESSAGE_METADATA_LIMITS.maxKeyLength} characters`,
  });
export type MessageMetadata = z.infer<typeof messageMetadataSchema>;

/** `{{ session.messageMetadata.a.b }}` or `{{ message_metadata.a.b }}` (the path may be empty). */
const PLACEHOLDER = /\{\{\s*(?:session\.messageMetadata|message_metadata)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

function lookup(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const key of path.split('.').slice(1)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The system prompt with this turn's message metadata filled in. A string is inserted as is, any
 * other value as JSON; a missing path (or a turn without metadata) inserts nothing. Other `{{…}}`
 * text is left alone: prompts may contain braces of their own.
 */
export function renderPrompt(prompt: string, messageMetadata: Record<string, unknown> | undefined): string {
  if (!prompt.includes('{{')) return prompt;
  return prompt.replace(PLACEHOLDER, (_match, path: string) => {
    const value = lookup(messageMetadata, path);
    if (value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
