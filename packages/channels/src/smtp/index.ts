/**
 * The SMTP intake of the email channel: the server and the receiver that feeds the pipeline: what
 * the rest of @parley/channels and its users import from here.
 */
export { createEmailReceiver } from './emailReceiver.js';
export { createEmailSmtpServer, type EmailSmtpServer } from './emailSmtpServer.js';
