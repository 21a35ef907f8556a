/** Telegram Bot API adapter: what the rest of @parley/channels and its users import from here. */
export { createTelegramAdapter, verifyTelegramSecret } from './telegramAdapter.js';
