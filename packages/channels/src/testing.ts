/**
 * Test helpers of @parley/channels (`@parley/channels/testing`): local stand-ins of the platforms'
 * APIs and issuers, and checks of what adapters render. Never imported by production code.
 */

export {
  STAND_IN_ACCESS_TOKEN,
  STAND_IN_CLIENT_SECRET,
  STAND_IN_TENANT_ID,
  startBotConnectorStandIn,
} from './adapters/msteams/botConnectorStandIn.js';
export {
  createBotFrameworkTestIssuer,
  type TestTokenOptions,
} from './adapters/msteams/botFrameworkTestIssuer.js';
export {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
  testConnection,
} from './adapters/testing/standInServer.js';
export {
  messagesInbound as vonageMessagesInbound,
  messagesStatus as vonageMessagesStatus,
  signSmsApi,
  smsApiInbound,
  smsApiReceipt,
  vonageWebhookToken,
} from './adapters/vonage/testing/vonageWebhooks.js';
export { xmlWellFormedError } from './adapters/vxml/xmlWellFormed.js';
export {
  createSelfSignedCertificate,
  type TestCertificate,
} from './httpAsync/testing/selfSignedCertificate.js';
