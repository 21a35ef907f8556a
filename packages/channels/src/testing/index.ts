/**
 * Test helpers of @parley/channels (`@parley/channels/testing`): local stand-ins of the platforms'
 * APIs and issuers, recorded vendor webhooks, and checks of what adapters render. Never imported by
 * production code; the package's own specs import the files here directly (arbitraries, testConnection).
 */

export {
  createSelfSignedCertificate,
  type TestCertificate,
} from './httpAsync/selfSignedCertificate.js';
export { LOOPBACK_API_BASE_URLS } from './loopbackApiBaseUrls.js';
export {
  STAND_IN_ACCESS_TOKEN,
  STAND_IN_CLIENT_SECRET,
  STAND_IN_TENANT_ID,
  startBotConnectorStandIn,
} from './msteams/botConnectorStandIn.js';
// Named by the declarations of startBotConnectorStandIn's users.
export type { TestTokenOptions } from './msteams/botFrameworkTestIssuer.js';
export {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
} from './standInServer.js';
export {
  messagesInbound as vonageMessagesInbound,
  messagesStatus as vonageMessagesStatus,
  signSmsApi,
  smsApiConcatParts,
  smsApiInbound,
  smsApiReceipt,
  vonageWebhookToken,
} from './vonage/vonageWebhooks.js';
export { xmlWellFormedError } from './vxml/xmlWellFormed.js';
