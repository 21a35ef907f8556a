export {
  createEmailReceiver,
  type EmailReceiver,
  type EmailReceiverDeps,
  type IgnoreReason,
  type ReceivedEmail,
  type ReceiveOutcome,
} from './emailReceiver.js';
export {
  createEmailSmtpServer,
  DEFAULT_EMAIL_MAX_MESSAGE_BYTES,
  type EmailSmtpServer,
  type EmailSmtpServerOptions,
  MAX_EMAIL_RECIPIENTS,
} from './emailSmtpServer.js';
