/**
 * Vonage SMS / Messages API adapter (provider `vonage` of the sms channel): what the rest of
 * @parley/channels and its users import from here.
 */
export { createVonageAdapter } from './vonageAdapter.js';
export {
  VONAGE_API_CREDENTIALS,
  VONAGE_PROVIDER,
  vonageSettingsOf,
  vonageSettingsSchema,
} from './vonageSettings.js';
