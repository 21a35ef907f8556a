import { z } from 'zod';

/** Spec 000 §2.1/§8: a media URL lives at most this long, whatever is configured. */
export const MAX_MEDIA_URL_TTL_SECONDS = 3600;

/** packages/auth ProjectSettings.recording, as the recordings API reads it. */
const recordingSettingsSchema = z
  .object({
    enabled: z.boolean().optional(),
    retentionDays: z.number().nonnegative().nullable().optional(),
    objectLimit: z.int().min(1).optional(),
    mediaUrlTtlSeconds: z.int().min(1).optional(),
  })
  .optional();

export interface EffectiveRecordingSettings {
  /** The project records calls (absent: on). */
  enabled: boolean;
  objectLimit: number;
  mediaUrlTtlSeconds: number;
}

/**
 * The project's recording settings over the deployment's defaults; null when they are malformed
 * (the route answers 503 RECORDING_SETTINGS_UNAVAILABLE rather than guess what was meant).
 */
export function effectiveRecordingSettings(
  raw: unknown,
  defaults: { objectLimit: number; mediaUrlTtlSeconds: number },
): EffectiveRecordingSettings | null {
  const parsed = recordingSettingsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const settings = parsed.data ?? {};
  return {
    enabled: settings.enabled ?? true,
    objectLimit: settings.objectLimit ?? defaults.objectLimit,
    mediaUrlTtlSeconds: Math.min(
      settings.mediaUrlTtlSeconds ?? defaults.mediaUrlTtlSeconds,
      MAX_MEDIA_URL_TTL_SECONDS,
    ),
  };
}
