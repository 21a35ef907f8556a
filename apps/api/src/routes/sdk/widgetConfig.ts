import type { PublicKeyPermissions } from '@parley/auth';
import { type SdkChannelStore, widgetConfigSchema as storedWidgetConfigSchema } from '@parley/channels';
import { z } from 'zod';

/** The widget configuration of spec 001 §2.5 (the `config` of GET /api/v1/sdk/config/{projectId}). */
export const resolvedWidgetConfigSchema = z.object({
  mode: z.enum(['chat', 'voice', 'unified']),
  position: z.enum(['bottom-right', 'bottom-left', 'top-right', 'top-left']),
  theme: z
    .record(z.string(), z.unknown())
    .describe('Colours, fonts and the like, as the SDK channel sets them'),
  welcomeMessage: z.string(),
  placeholderText: z.string(),
  voiceEnabled: z.boolean(),
  chatEnabled: z.boolean(),
});
export type ResolvedWidgetConfig = z.infer<typeof resolvedWidgetConfigSchema>;

export const WIDGET_DEFAULTS: ResolvedWidgetConfig = {
  mode: 'chat',
  position: 'bottom-right',
  theme: {},
  welcomeMessage: 'Hi! How can we help?',
  placeholderText: 'Type your message…',
  voiceEnabled: false,
  chatEnabled: true,
};

// Each stored field is checked as the SDK channels API checks it on write (@parley/channels).
const fields = storedWidgetConfigSchema.shape;

/**
 * A stored SDK channel `config` merged over the defaults, field by field: a
 * field that is missing or not valid (the column is free JSON, written by older
 * code or by hand) takes its default rather than breaking every widget of the
 * project; unknown keys are left out. `chatEnabled` and `voiceEnabled` can
 * only narrow what the public key permits, and `mode` falls back to what is
 * enabled.
 */
export function resolveWidgetConfig(
  stored: unknown,
  permissions: PublicKeyPermissions,
): ResolvedWidgetConfig {
  const source = typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {};
  const pick = <K extends keyof ResolvedWidgetConfig>(key: K): ResolvedWidgetConfig[K] => {
    const parsed = fields[key].safeParse((source as Record<string, unknown>)[key]);
    return parsed.success && parsed.data !== undefined
      ? (parsed.data as ResolvedWidgetConfig[K])
      : WIDGET_DEFAULTS[key];
  };
  const chatEnabled = pick('chatEnabled') && permissions.chat;
  const voiceEnabled =
    (Object.hasOwn(source, 'voiceEnabled') ? pick('voiceEnabled') : permissions.voice) && permissions.voice;
  let mode = pick('mode');
  if (mode === 'unified' && !(chatEnabled && voiceEnabled)) mode = voiceEnabled ? 'voice' : 'chat';
  if (mode === 'voice' && !voiceEnabled) mode = 'chat';
  if (mode === 'chat' && !chatEnabled && voiceEnabled) mode = 'voice';
  return {
    mode,
    position: pick('position'),
    theme: pick('theme'),
    welcomeMessage: pick('welcomeMessage'),
    placeholderText: pick('placeholderText'),
    voiceEnabled,
    chatEnabled,
  };
}

/** What the SDK routes need of the SDK channels (@parley/channels createSdkChannelStore). */
export interface SdkChannelLookup {
  /**
   * The `config` of the project's active `web` channel bound to this public key: the oldest one, so
   * editing another channel never switches what the widget shows; null when none.
   */
  webConfig(projectId: string, publicKeyId: string): Promise<unknown | null>;
  /** Whether the channel is an active SDK channel of the project bound to this public key. */
  isBound(projectId: string, publicKeyId: string, channelId: string): Promise<boolean>;
}

export function sdkChannelLookup(store: Pick<SdkChannelStore, 'findActive' | 'resolve'>): SdkChannelLookup {
  return {
    async webConfig(projectId, publicKeyId) {
      const channel = await store.findActive({ projectId, publicApiKeyId: publicKeyId, channelType: 'web' });
      return channel?.config ?? null;
    },
    async isBound(projectId, publicKeyId, channelId) {
      const channel = await store.resolve(channelId);
      if (channel === null) return false;
      return channel.isActive && channel.projectId === projectId && channel.publicApiKeyId === publicKeyId;
    },
  };
}
