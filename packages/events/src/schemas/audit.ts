import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { countSchema, idSchema, jsonObjectSchema, principalSchema, timestampSchema } from './common.js';

/**
 * AuditRecorded, in the stream `audit-<projectId>`: the audit records the spec requires (spec 000
 * §6), the one case where a read route appends to the log. Content never holds a media URL or
 * token (bearer secrets) nor conversation text.
 */

export const URL_KINDS = ['signed', 'proxied', 'external'] as const;
export const DISPOSITIONS = ['inline', 'attachment'] as const;

/** Content schemas of the actions the spec names; other actions carry free JSON content. */
export const auditContentSchemas = {
  /** Every recordings API response that issues at least one URL; principal: the calling API key. */
  'recording:public_media_urls_issued': z.object({
    files: z
      .array(z.object({ recordingId: idSchema, objectIndex: countSchema, urlKind: z.enum(URL_KINDS) }))
      .min(1),
    disposition: z.enum(DISPOSITIONS),
  }),
  /** Every request that streams media through a proxied URL; principal: the media token. */
  'recording:media_content_streamed': z.object({
    recordingId: idSchema,
    objectIndex: countSchema,
    disposition: z.enum(DISPOSITIONS).optional(),
  }),
} as const;
export type AuditAction = keyof typeof auditContentSchemas;
export const AUDIT_ACTIONS = Object.keys(auditContentSchemas) as AuditAction[];
export type AuditContent<A extends AuditAction> = z.infer<(typeof auditContentSchemas)[A]>;

const isKnownAction = (action: string): action is AuditAction => Object.hasOwn(auditContentSchemas, action);

export const auditRecordedSchema = z
  .object({
    projectId: idSchema,
    tenantId: idSchema.optional(),
    /** `resource:verb` in snake case, e.g. `recording:public_media_urls_issued`. */
    action: z.string().regex(/^[a-z][a-z_]*:[a-z][a-z_]*$/, 'expected resource:verb in snake_case'),
    principal: principalSchema,
    /** What the action was about, e.g. `{ type: 'session', id }` for URLs issued for a session. */
    resource: z.object({ type: z.string().min(1), id: idSchema }),
    content: jsonObjectSchema,
    at: timestampSchema,
  })
  .superRefine((record, ctx) => {
    if (!isKnownAction(record.action)) return;
    const result = auditContentSchemas[record.action].safeParse(record.content);
    if (result.success) return;
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', path: ['content', ...issue.path], message: issue.message });
    }
  });
export type AuditRecordedData = z.infer<typeof auditRecordedSchema>;
export const auditRecorded = defineEvent({
  type: 'AuditRecorded',
  schemaVersion: 1,
  schema: auditRecordedSchema,
});
