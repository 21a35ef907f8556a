export {
  A2A_CHANNEL_TYPE,
  A2A_NOTIFICATION_TOKEN_HEADER,
  A2A_PUSH_TIMEOUT_MS,
  type A2aAdapter,
  type A2aAdapterOptions,
  type A2aChannelMetadata,
  createA2aAdapter,
  pushUrlAllowed,
  replyParts,
} from '../a2a/a2aAdapter.js';
export { a2aMigrations } from '../a2a/a2aMigrations.js';
export {
  A2A_HISTORY_LIMITS,
  A2A_MAX_TEXT_CHARS,
  type A2aPushConfig,
  type A2aSendRequest,
  type MessageMetadataValidator,
  parseSendParams,
  parseTaskId,
  parseTaskQuery,
} from '../a2a/a2aParams.js';
export {
  A2A_ERRORS,
  A2A_METHODS,
  A2A_PROTOCOL_VERSION,
  type A2aArtifact,
  type A2aMessage,
  type A2aMethod,
  type A2aPart,
  type A2aTask,
  type A2aTaskState,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcResponse,
  type ParsedRpcRequest,
  parseRpcRequest,
  rpcError,
  rpcFailure,
  rpcResult,
  TERMINAL_STATES,
} from '../a2a/a2aProtocol.js';
export { A2A_DEFAULT_BLOCKING_TIMEOUT_MS, type A2aRpcDeps, answerA2aRpc } from '../a2a/a2aRpc.js';
export {
  type A2aTaskStore,
  a2aTaskId,
  type CancelOutcome,
  createA2aTaskStore,
  type NewA2aTask,
  type StoredA2aTask,
  toA2aTask,
} from '../a2a/a2aTaskStore.js';
export {
  CONTACT_CENTER_CHANNEL_TYPE,
  CONTACT_CENTER_CREDENTIALS,
  CONTACT_CENTER_DEFAULT_CREDENTIAL_HEADER,
  type ContactCenterAdapterOptions,
  createContactCenterAdapter,
  verifyContactCenterSecret,
} from './contactCenter/contactCenterAdapter.js';
export {
  type ContactCenterRequest,
  parseContactCenterRequest,
} from './contactCenter/contactCenterPayload.js';
export {
  CONTACT_CENTER_LIMITS,
  type ContactCenterReplyMessage,
  type ContactCenterResponseBody,
  renderContactCenterResponse,
  toContactCenterMessages,
} from './contactCenter/contactCenterTransform.js';
export {
  createEmailAdapter,
  type EmailAdapter,
  type EmailAdapterOptions,
} from './email/emailAdapter.js';
export { composeReplyEmail, outboundMessageId, replyReferences } from './email/emailMessage.js';
export { channelEmailMigrations } from './email/emailMigrations.js';
export {
  automatedReason,
  type EmailAttachmentInfo,
  type InboundEmail,
  messageIdsIn,
  readInboundEmail,
  toNormalizedMessage as emailToNormalizedMessage,
} from './email/emailPayload.js';
export { stripQuotedReply } from './email/emailQuotes.js';
export {
  DEFAULT_AUTO_REPLY_THRESHOLD_SECONDS,
  EMAIL_CHANNEL_TYPE,
  EMAIL_CREDENTIALS,
  type EmailSettings,
  emailConfigOf,
  emailSettingsSchema,
} from './email/emailSettings.js';
export { replySubject } from './email/emailSubject.js';
export { createEmailThreadStore, type EmailThreadStore } from './email/emailThreads.js';
export { type EmailOutput, toEmailOutput } from './email/emailTransform.js';
export type { EmailTransport, OutboundEmail } from './email/emailTransport.js';
export { GRAPH_API_BASE_URL } from './email/graphTransport.js';
export { markdownToText } from './email/markdownToText.js';
export {
  createInstagramAdapter,
  INSTAGRAM_API_BASE_URL,
  INSTAGRAM_CHANNEL_TYPE,
  INSTAGRAM_CREDENTIALS,
  type InstagramAdapter,
} from './instagram/instagramAdapter.js';
export { instagramAccountId, parseInstagramPayload } from './instagram/instagramPayload.js';
export {
  INSTAGRAM_LIMITS,
  type InstagramOutput,
  splitTextBytes,
  toInstagramOutput,
} from './instagram/instagramTransform.js';
export {
  createLineAdapter,
  LINE_API_BASE_URL,
  LINE_CHANNEL_TYPE,
  LINE_CREDENTIALS,
  LINE_LOADING_SECONDS,
  LINE_REPLY_TOKEN_TTL_MS,
  type LineAdapter,
  type LineAdapterOptions,
  lineRetryKey,
  verifyLineSignature,
} from './line/lineAdapter.js';
export { lineDestination, parseLineWebhook } from './line/linePayload.js';
export { LINE_LIMITS, type LineOutput, splitLineText, toLineOutput } from './line/lineTransform.js';
export {
  createMessengerAdapter,
  MESSENGER_API_BASE_URL,
  MESSENGER_CHANNEL_TYPE,
  MESSENGER_CREDENTIALS,
  type MessengerAdapter,
} from './messenger/messengerAdapter.js';
export { metaEntryId, parseMessengerPayload, parseMetaMessaging } from './messenger/messengerPayload.js';
export { MESSENGER_LIMITS, type MessengerOutput, toMessengerOutput } from './messenger/messengerTransform.js';
export {
  createMsTeamsAdapter,
  MSTEAMS_CHANNEL_TYPE,
  MSTEAMS_CREDENTIALS,
  type MsTeamsAdapter,
  type MsTeamsAdapterOptions,
} from './msteams/msteamsAdapter.js';
export {
  BOT_FRAMEWORK_ISSUER,
  BOT_FRAMEWORK_OPENID_METADATA_URL,
  createBotFrameworkKeys,
  verifyBotFrameworkToken,
} from './msteams/msteamsAuth.js';
export { msteamsConnectionIdentifier, parseMsTeamsActivity } from './msteams/msteamsPayload.js';
export { BOT_CONNECTOR_SCOPE, MICROSOFT_LOGIN_BASE_URL } from './msteams/msteamsToken.js';
export { MSTEAMS_LIMITS, type MsTeamsOutput, toMsTeamsOutput } from './msteams/msteamsTransform.js';
export {
  createSlackAdapter,
  SLACK_API_BASE_URL,
  SLACK_CHANNEL_TYPE,
  SLACK_CREDENTIALS,
  SLACK_REPLAY_WINDOW_SECONDS,
  type SlackAdapter,
  type SlackAdapterOptions,
  verifySlackSignature,
} from './slack/slackAdapter.js';
export { parseSlackBody, slackBody, slackConnectionIdentifier } from './slack/slackPayload.js';
export { markdownToMrkdwn, SLACK_LIMITS, type SlackOutput, toSlackOutput } from './slack/slackTransform.js';
export {
  createSmsAdapter,
  SMS_API_BASE_URL,
  SMS_CHANNEL_TYPE,
  SMS_CREDENTIALS,
  type SmsAdapter,
  type SmsAdapterOptions,
  verifySmsSignature,
} from './sms/smsAdapter.js';
export { parseSmsWebhook, smsParams, smsToNumber } from './sms/smsPayload.js';
export { actionSetAsText, SMS_LIMITS, type SmsOutput, toSmsOutput } from './sms/smsTransform.js';
export {
  createTelegramAdapter,
  generateTelegramSecretToken,
  registerTelegramWebhook,
  TELEGRAM_API_BASE_URL,
  TELEGRAM_CHANNEL_TYPE,
  TELEGRAM_CREDENTIALS,
  type TelegramAdapterOptions,
  verifyTelegramSecret,
} from './telegram/telegramAdapter.js';
export { parseTelegramUpdate, telegramBotId } from './telegram/telegramPayload.js';
export { TELEGRAM_LIMITS, type TelegramOutput, toTelegramOutput } from './telegram/telegramTransform.js';
export {
  createVonageAdapter,
  VONAGE_SMS_MAX_TEXT,
  type VonageAdapter,
  type VonageAdapterOptions,
} from './vonage/vonageAdapter.js';
export {
  apiOfBody,
  parseVonageInbound,
  parseVonageReceipts,
  smsApiParams,
  vonageNumberOf,
} from './vonage/vonagePayload.js';
export { sendVonagePart, VONAGE_API_HOST, VONAGE_REST_HOST } from './vonage/vonageSend.js';
export {
  VONAGE_API_CREDENTIALS,
  VONAGE_APIS,
  VONAGE_PROVIDER,
  VONAGE_SIGNATURE_METHODS,
  type VonageApi,
  type VonageSignatureMethod,
  vonageSettingsOf,
  vonageSettingsSchema,
} from './vonage/vonageSettings.js';
export { smsApiSignature, verifyMessagesWebhook, verifySmsApiWebhook } from './vonage/vonageSignature.js';
export {
  createVxmlAdapter,
  nextUrlOf,
  VXML_CHANNEL_TYPE,
  VXML_CREDENTIALS,
  type VxmlAdapterOptions,
  verifyVxmlToken,
} from './vxml/vxmlAdapter.js';
export {
  DEFAULT_VXML_SETTINGS,
  optionLabels,
  renderVxmlResponse,
  speakable,
  VXML_CONTENT_TYPE,
  VXML_LIMITS,
  type VxmlSettings,
  vxmlDocument,
  vxmlSettingsOf,
  xmlEscape,
} from './vxml/vxmlDocument.js';
export { parseVxmlRequest, type VxmlFields, vxmlFields } from './vxml/vxmlPayload.js';
export { type WebhookBodyFormat, webhookBodyProblem } from './webhookBody.js';
export {
  createWhatsAppAdapter,
  verifyMetaSignature,
  WHATSAPP_API_BASE_URL,
  WHATSAPP_CHANNEL_TYPE,
  WHATSAPP_CREDENTIALS,
  type WhatsAppAdapter,
} from './whatsapp/whatsappAdapter.js';
export { parseWhatsAppPayload, whatsAppPhoneNumberId } from './whatsapp/whatsappPayload.js';
export { toWhatsAppOutput, WHATSAPP_LIMITS, type WhatsAppOutput } from './whatsapp/whatsappTransform.js';
export {
  createZendeskAdapter,
  verifyZendeskBasicAuth,
  verifyZendeskSignature,
  ZENDESK_API_BASE_URL,
  ZENDESK_CHANNEL_TYPE,
  ZENDESK_CREDENTIALS,
  ZENDESK_REPLAY_WINDOW_SECONDS,
  type ZendeskAdapter,
  type ZendeskAdapterOptions,
} from './zendesk/zendeskAdapter.js';
export { parseZendeskWebhook, zendeskAppId } from './zendesk/zendeskPayload.js';
export { toZendeskOutput, ZENDESK_LIMITS, type ZendeskOutput } from './zendesk/zendeskTransform.js';
