import type { NormalizedMessage } from '../../types.js';
import { metaEntryId, parseMetaMessaging } from '../messenger/index.js';

/**
 * Instagram messaging webhooks (object `instagram`, `entry[].messaging[]`, the Messenger shapes)
 * to normalized messages (only those of the account `onlyAccountId` when given). Kept: text
 * messages, quick reply taps and postbacks; ignored: echoes (`is_echo`), deleted and unsupported
 * messages, reactions, reads, story mentions and attachments without text.
 */
export const parseInstagramPayload = (payload: unknown, onlyAccountId?: string): NormalizedMessage[] =>
  parseMetaMessaging(payload, 'instagram', onlyAccountId);

/** The connection identifier of a webhook body: the Instagram professional account id. */
export const instagramAccountId = (payload: unknown): string | null => metaEntryId(payload, 'instagram');
