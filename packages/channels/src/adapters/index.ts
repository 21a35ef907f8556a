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
  createWhatsAppAdapter,
  verifyMetaSignature,
  WHATSAPP_API_BASE_URL,
  WHATSAPP_CHANNEL_TYPE,
  WHATSAPP_CREDENTIALS,
  type WhatsAppAdapter,
} from './whatsapp/whatsappAdapter.js';
export { parseWhatsAppPayload, whatsAppPhoneNumberId } from './whatsapp/whatsappPayload.js';
export { toWhatsAppOutput, WHATSAPP_LIMITS, type WhatsAppOutput } from './whatsapp/whatsappTransform.js';
