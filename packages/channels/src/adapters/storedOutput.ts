import type { OutgoingMessage, OutgoingReply } from '../types.js';
import { isRecord } from './shared.js';

/**
 * The platform output to send for a queued message: what the adapter's transformOutput stored with
 * it (recognised by its `list` field, an array), else the reply rendered now with `render` (a
 * message stored without one). Every adapter that sends from the queue starts its sendResponse here.
 */
export const storedOutput = <T extends object>(
  message: OutgoingMessage,
  list: keyof T & string,
  render: (reply: OutgoingReply) => T,
): T =>
  isRecord(message.channelOutput) && Array.isArray(message.channelOutput[list])
    ? (message.channelOutput as T)
    : render(message.reply);
