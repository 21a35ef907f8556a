import { toTelephonyFrames } from './audio.js';
import type { TextToSpeech } from './engines.js';
import { TelephonyEncoder } from './telephonyEncoder.js';

/**
 * Speaks one chunk of a reply: its µ-law frames go to `media` as the engine produces the audio
 * (synthesizeStream) or, for an engine without streaming, once the chunk is synthesized. Nothing
 * more is sent once `cut` says the reply was interrupted (or the call ended).
 */
export async function speakChunk(
  tts: TextToSpeech,
  chunk: string,
  out: { cut: () => boolean; media: (frame: Uint8Array) => void },
): Promise<void> {
  if (out.cut()) return;
  const send = (frames: Uint8Array[]) => {
    if (out.cut()) return;
    for (const frame of frames) out.media(frame);
  };
  if (tts.synthesizeStream === undefined) {
    const wav = await tts.synthesize(chunk);
    send(toTelephonyFrames(wav));
    return;
  }
  const controller = new AbortController();
  let encoder: TelephonyEncoder | null = null;
  try {
    await tts.synthesizeStream(
      chunk,
      (samples, sampleRate) => {
        if (out.cut()) {
          controller.abort();
          return;
        }
        encoder ??= new TelephonyEncoder(sampleRate);
        send(encoder.push(samples));
      },
      { signal: controller.signal },
    );
  } catch (err) {
    if (controller.signal.aborted) return;
    throw err;
  }
  if (encoder !== null) send((encoder as TelephonyEncoder).end());
}
