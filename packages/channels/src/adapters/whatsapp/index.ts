/**
 * WhatsApp Cloud API adapter (and the Meta X-Hub-Signature-256 check): what the rest of
 * @parley/channels and its users import from here.
 */
export { createWhatsAppAdapter, verifyMetaSignature } from './whatsappAdapter.js';
