/**
 * Test helpers of @parley/channels (`@parley/channels/testing`): local stand-ins of the platforms'
 * APIs and issuers, and checks of what adapters render. Never imported by production code.
 */

export {
  createSelfSignedCertificate,
  type TestCertificate,
} from './httpAsync/selfSignedCertificate.js';
export {
  STAND_IN_ACCESS_TOKEN,
  STAND_IN_CLIENT_SECRET,
  STAND_IN_TENANT_ID,
  startBotConnectorStandIn,
} from './msteams/botConnectorStandIn.js';
export {
  createBotFrameworkTestIssuer,
  type TestTokenOptions,
} from './msteams/botFrameworkTestIssuer.js';
export {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
  testConnection,
} from './standInServer.js';
export {
  messagesInbound as vonageMessagesInbound,
  messagesStatus as vonageMessagesStatus,
  signSmsApi,
  smsApiInbound,
  smsApiReceipt,
  vonageWebhookToken,
} from './vonage/vonageWebhooks.js';
export { xmlWellFormedError } from './vxml/xmlWellFormed.js';
