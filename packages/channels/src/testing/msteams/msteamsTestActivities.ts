import type { InboundRequest } from '../../adapter.js';
import { testConnection } from '../standInServer.js';

/** Tests only: Teams activities in the documented shapes, and the request the pipeline hands over. */
export const APP_ID = 'c9e8c047-2a74-40a2-b28a-b162d5f5327c';
export const TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const SERVICE_URL = 'https://smba.trafficmanager.net/amer/';
export const CHANNEL_THREAD = '19:e2c1c1b1f9a64d1f9f3d5b3e1f3b7a1c@thread.tacv2;messageid=1763719200123';

export const teamsConnection = testConnection('msteams', APP_ID, {
  appId: APP_ID,
  clientSecret: 'client-secret-value',
  tenantId: TENANT_ID,
});

// Shapes from the Teams "Messages in bot conversations" and Bot Framework Activity schema references.
export const personalMessage = {
  type: 'message',
  id: '1485983408511',
  timestamp: '2026-11-21T10:00:07.437Z',
  localTimestamp: '2026-11-21T11:00:07.437+01:00',
  serviceUrl: SERVICE_URL,
  channelId: 'msteams',
  from: {
    id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85gQtHieVkKilBZ9XHoq9j7Zaqt7CZ-NJWi7me2kHTL3Bw',
    name: 'Megan Bowen',
    aadObjectId: '7faf3c6a-9d4b-4a87-8a3c-1d3e1c1e2f11',
  },
  conversation: {
    conversationType: 'personal',
    tenantId: TENANT_ID,
    id: 'a:17I0kl8EkpE1O9PH5TWrzrLNwnWWcfrU7QZjKR0WSfOpzbfcAg2IaydGElSo10tVr4C7Fc6GtieTJX663WuJCc1uA83n4CSrHSgGBj5XNYLcVlJAs2ZX8DbYBPck201w-',
  },
  recipient: { id: `28:${APP_ID}`, name: 'Parley Bot' },
  textFormat: 'plain',
  text: 'Where is my order?',
  entities: [
    { locale: 'en-US', country: 'US', platform: 'Windows', timezone: 'Europe/Berlin', type: 'clientInfo' },
  ],
  channelData: { tenant: { id: TENANT_ID } },
  locale: 'en-US',
};
export const channelMention = {
  ...personalMessage,
  id: '1763719200123',
  text: '<at>Parley Bot</at> summarise the <b>incident</b> for <at>Adele Vance</at>\n',
  conversation: { isGroup: true, conversationType: 'channel', tenantId: TENANT_ID, id: CHANNEL_THREAD },
  entities: [
    { type: 'mention', mentioned: { id: `28:${APP_ID}`, name: 'Parley Bot' }, text: '<at>Parley Bot</at>' },
    { type: 'mention', mentioned: { id: '29:1adele', name: 'Adele Vance' }, text: '<at>Adele Vance</at>' },
  ],
  channelData: {
    teamsChannelId: '19:e2c1c1b1f9a64d1f9f3d5b3e1f3b7a1c@thread.tacv2',
    teamsTeamId: '19:7f1d9a8c2b3e4d5f@thread.tacv2',
    channel: { id: '19:e2c1c1b1f9a64d1f9f3d5b3e1f3b7a1c@thread.tacv2' },
    team: { id: '19:7f1d9a8c2b3e4d5f@thread.tacv2' },
    tenant: { id: TENANT_ID },
  },
};

export const request = (activity: unknown, authorization?: string): InboundRequest => ({
  headers: {
    'content-type': 'application/json',
    ...(authorization === undefined ? {} : { authorization }),
  },
  body: activity,
  rawBody: Buffer.from(JSON.stringify(activity)),
  url: 'https://parley.example/api/v1/channels/msteams/webhook',
  query: {},
});
