/**
 * Facebook Messenger adapter and the Meta messaging pieces Instagram shares: what the rest of
 * @parley/channels and its users import from here.
 */
export {
  createMessengerAdapter,
  metaChallenge,
  sendMetaMessages,
  sendMetaTyping,
  verifyMetaRequest,
} from './messengerAdapter.js';
export { metaEntryId, parseMetaMessaging } from './messengerPayload.js';
export { type MessengerQuickReply, metaQuickReplyOutput, metaTextMessages } from './messengerTransform.js';
