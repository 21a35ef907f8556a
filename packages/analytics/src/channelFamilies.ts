/**
 * Channel families of the session list (spec 000 §4.2): a channel filter value stands for its whole
 * family, older stored spellings included. Ledger channels are exact and never go through this.
 */

/** The web-chat widget: `web`, `sdk_web` and `web_chat` return the same sessions. */
export const WEB_CHANNELS = ['web', 'sdk_web', 'web_chat', 'webchat', 'web-chat', 'sdk-web'] as const;

/** Every voice channel, current and older spellings: asking for one returns all voice sessions. */
export const VOICE_CHANNELS = [
  'voice',
  'voice_vxml',
  'voice_pipeline',
  'voice_realtime',
  'voice-vxml',
  'voice-pipeline',
  'voice-realtime',
  'vxml',
] as const;

export type ChannelFamily = 'web' | 'voice';

const WEB = new Set<string>(WEB_CHANNELS);
const VOICE = new Set<string>(VOICE_CHANNELS);

/** The family of a channel value, case-sensitive; `voice_*` and `voice-*` are voice even if not listed. */
export function channelFamily(channel: string): ChannelFamily | undefined {
  if (WEB.has(channel)) return 'web';
  if (VOICE.has(channel) || channel.startsWith('voice_') || channel.startsWith('voice-')) return 'voice';
  return undefined;
}

/**
 * The stored spellings a list of channel filter values matches: each family member expands to the
 * whole family (plus itself, for an unlisted `voice_*` spelling); any other value is kept as it is, so
 * an unrecognised value matches no row. Order: first appearance; no duplicates.
 */
export function expandChannels(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const value of values) {
    const family = channelFamily(value);
    if (family === 'web') for (const c of WEB_CHANNELS) out.add(c);
    if (family === 'voice') for (const c of VOICE_CHANNELS) out.add(c);
    out.add(value);
  }
  return [...out];
}

/**
 * Session channels Parley itself once recorded under another name, and the spec's value (spec 000
 * §4.2): VoiceXML sessions were `vxml` before they were `voice_vxml`. The read models store the
 * spec's value, so a rebuild relabels sessions and LLM calls recorded before.
 */
const RENAMED_CHANNELS: Readonly<Record<string, string>> = { vxml: 'voice_vxml' };

export const canonicalChannel = (channel: string): string => RENAMED_CHANNELS[channel] ?? channel;
