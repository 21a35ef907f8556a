import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { channelsSdkMigrations, createSdkChannelStore } from '@parley/channels';
import { createSdkTokens } from '@parley/http';
import { migrate, silentLogger } from '@parley/platform';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { type ChatWorld, createChatWorld, inProcessLimits } from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from '../chat/sessionScopeFromLog.js';
import { sdkChannelLookup } from './widgetConfig.js';

/**
 * The widget in a real browser (Debian's chromium through playwright-core): a host page on an
 * allowed origin loads /sdk/widget.js from the API, opens the chat, sends a message and shows the
 * scripted agent's streamed reply; the same page on an unlisted origin shows that chat is refused.
 * Without /usr/bin/chromium the suite is skipped (and fails under CI=true).
 * WIDGET_SCREENSHOT=<path> saves a screenshot of the open chat (docs/sdk/widget.png).
 */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: the widget browser test cannot run`);
  console.warn(`SKIPPING the widget browser test: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

/** The browser's work can take seconds on a loaded machine (2 cores shared by test runs). */
const POLL = { timeout: 15_000 };
const SHADOW = "document.querySelector('#parley-widget').shadowRoot";
// Tokens live 20 s here, less than the 30 s the widget wants left: it asks /sdk/init for a new one
// before each message, for the same end user, and the conversation goes on.
const sdk = createSdkTokens({ secret: 'sdk-token-secret-for-the-widget-browser-test', ttlSeconds: 20 });

interface Seen {
  method: string;
  path: string;
  status: number;
  origin: string | undefined;
}

let world: ChatWorld;
let api: FastifyInstance;
let apiBase: string;
let allowedHost: Server;
let unlistedHost: Server;
let allowedOrigin: string;
let unlistedOrigin: string;
let browser: Browser;
let projectId: string;
let publicKey: string;
const seen: Seen[] = [];

/** A host page server that embeds the widget, on its own port of 127.0.0.1. */
async function hostPage(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Shop</title></head>
<body><h1>A shop</h1><p>Products.</p>
<script src="${apiBase}/sdk/widget.js" async data-public-key="${publicKey}"
  data-project-id="${projectId}" data-api-base="${apiBase}"></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

beforeAll(async () => {
  if (!hasChromium) return;
  world = await createChatWorld();
  await migrate(world.db.pool, [channelsSdkMigrations]);
  ({ projectId } = await world.newProject());
  api = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    chat: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifySdkToken: sdk.verify,
      runtime: world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(),
    },
    sdkBootstrap: {
      publicKeys: world.auth,
      channels: sdkChannelLookup(createSdkChannelStore(world.db.pool)),
      sdkTokens: sdk,
    },
    widget: {},
  });
  // What the browser sent the API, preflights included (Chromium does not report those to the page).
  api.server.on('request', (req, res) =>
    res.on('finish', () =>
      seen.push({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        status: res.statusCode,
        origin: req.headers.origin,
      }),
    ),
  );
  await api.listen({ port: 0, host: '127.0.0.1' });
  apiBase = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;

  const allowed = await hostPage();
  const unlisted = await hostPage();
  allowedHost = allowed.server;
  unlistedHost = unlisted.server;
  allowedOrigin = `http://127.0.0.1:${allowed.port}`;
  // Same machine, another origin: `localhost` is not `127.0.0.1` to the browser.
  unlistedOrigin = `http://localhost:${unlisted.port}`;
  const key = await world.auth.createPublicApiKey({ projectId, allowedOrigins: [allowedOrigin] });
  publicKey = key.key;
  await createSdkChannelStore(world.db.pool).create(projectId, {
    name: 'Shop widget',
    channelType: 'web',
    publicApiKeyId: key.id,
    config: {
      position: 'bottom-left',
      welcomeMessage: 'Welcome to the shop! Ask me anything.',
      placeholderText: 'Ask about an order…',
      theme: { primaryColor: '#6b2fb3' },
    },
  });

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);

afterAll(async () => {
  if (!hasChromium) return;
  await browser?.close();
  await new Promise((resolve) => allowedHost?.close(resolve));
  await new Promise((resolve) => unlistedHost?.close(resolve));
  await api?.close();
  await world?.close();
});

async function openPage(origin: string): Promise<{ page: Page; warnings: string[] }> {
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  await page.goto(`${origin}/`);
  return { page, warnings };
}

describe.skipIf(!hasChromium)('the chat widget in Chromium', () => {
  it('chats from an allowed origin: config applied, welcome, streamed scripted reply', async () => {
    const { page } = await openPage(allowedOrigin);
    const widget = page.locator('#parley-widget');
    await expect.poll(() => widget.getAttribute('data-state'), POLL).toBe('ready');

    const launcher = page.getByRole('button', { name: 'Chat', exact: true });
    await launcher.click();
    await expect.poll(() => launcher.getAttribute('aria-expanded'), POLL).toBe('true');
    expect(await page.getByRole('dialog', { name: 'Chat' }).isVisible()).toBe(true);
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => log.textContent(), POLL).toContain('Welcome to the shop! Ask me anything.');

    const input = page.getByLabel('Message');
    expect(await input.getAttribute('placeholder')).toBe('Ask about an order…');
    // Counts the updates of reply bubbles: a streamed reply grows piece by piece.
    // (Browser-side code as strings: this package's TypeScript has no DOM types.)
    await page.evaluate(`window.replyUpdates = 0;
      new MutationObserver((records) => {
        for (const r of records) if (r.target.classList?.contains('assistant')) window.replyUpdates++;
      }).observe(${SHADOW}, { childList: true, subtree: true });`);
    const chatBodies: unknown[] = [];
    const initBodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST') return;
      if (request.url().endsWith('/api/v1/chat/stream')) chatBodies.push(request.postDataJSON());
      if (request.url().endsWith('/api/v1/sdk/init')) initBodies.push(request.postDataJSON());
    });
    // The panel opened with the focus on the input: typing and Enter send.
    await page.keyboard.type('Where is my parcel? /say Your parcel ships tomorrow morning.');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => log.locator('.assistant').last().textContent(), POLL)
      .toBe('(scripted) Your parcel ships tomorrow morning.');
    expect(await log.locator('.user').last().textContent()).toBe(
      'Where is my parcel? /say Your parcel ships tomorrow morning.',
    );
    expect(await page.evaluate('window.replyUpdates')).toBeGreaterThan(2);
    expect(await log.getAttribute('aria-busy')).toBeNull();
    expect(await log.locator('.typing').count()).toBe(0);

    // The config's position and theme reached the widget.
    const box = await page.locator('#parley-widget .launcher').boundingBox();
    expect(box!.x).toBeLessThan(100);
    expect(
      await page.evaluate(`getComputedStyle(${SHADOW}.querySelector('.launcher')).backgroundColor`),
    ).toBe('rgb(107, 47, 179)');

    // A second message continues the same session.
    await input.fill('And the invoice? /say It is in your account.');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => log.locator('.assistant').last().textContent(), POLL)
      .toBe('(scripted) It is in your account.');
    // (Polled: the reply shows at the `done` event, a moment before the stream's response finishes.)
    const streams = () => seen.filter((s) => s.path === '/api/v1/chat/stream' && s.method === 'POST');
    await expect
      .poll(() => streams().map((s) => [s.status, s.origin]), POLL)
      .toEqual([
        [200, allowedOrigin],
        [200, allowedOrigin],
      ]);
    // A new token per message (see sdk above), the second for the end user the first one named.
    expect(seen.filter((s) => s.path === '/api/v1/sdk/init' && s.method === 'POST')).toHaveLength(2);
    expect(initBodies[0]).toEqual({ projectId });
    expect(initBodies[1]).toEqual({ projectId, userId: expect.stringMatching(/^anon_/) });
    // The first message starts a session of the project, the second continues it.
    expect(chatBodies).toHaveLength(2);
    expect(chatBodies[0]).toEqual({
      projectId,
      message: 'Where is my parcel? /say Your parcel ships tomorrow morning.',
    });
    expect(chatBodies[1]).toEqual({
      sessionId: expect.stringMatching(/.+/),
      message: 'And the invoice? /say It is in your account.',
    });

    if (process.env.WIDGET_SCREENSHOT) {
      mkdirSync(dirname(process.env.WIDGET_SCREENSHOT), { recursive: true });
      await page.screenshot({ path: process.env.WIDGET_SCREENSHOT });
    }

    // The agent ends the conversation: the next message starts a new session of the project.
    await input.fill('Thanks, bye /end contained_resolved');
    await page.keyboard.press('Enter');
    await expect.poll(() => chatBodies.length, POLL).toBe(3);
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), POLL).toBe(true);
    await input.fill('One more thing /say Sure.');
    await page.keyboard.press('Enter');
    await expect.poll(() => log.locator('.assistant').last().textContent(), POLL).toBe('(scripted) Sure.');
    expect(chatBodies[3]).toEqual({ projectId, message: 'One more thing /say Sure.' });
    expect(await log.locator('.notice').count()).toBe(0);

    // Escape closes the panel and gives the focus back to the launcher.
    await page.keyboard.press('Escape');
    await expect.poll(() => launcher.getAttribute('aria-expanded'), POLL).toBe('false');
    expect(await page.evaluate(`${SHADOW}.activeElement?.className`)).toBe('launcher');
    await page.close();
  });

  it("works on the API's own demo page, under its Content-Security-Policy", async () => {
    const demoKey = await world.auth.createPublicApiKey({ projectId, allowedOrigins: [apiBase] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${apiBase}/sdk/widget?key=${demoKey.key}&project=${projectId}`);
    await expect.poll(() => page.locator('#parley-widget').getAttribute('data-state'), POLL).toBe('ready');
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await page.getByLabel('Message').fill('hello /say Hello from the demo.');
    await page.keyboard.press('Enter');
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect
      .poll(() => log.locator('.assistant').last().textContent(), POLL)
      .toBe('(scripted) Hello from the demo.');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is refused on an unlisted origin: the config request gets 403 and the widget says so', async () => {
    const { page, warnings } = await openPage(unlistedOrigin);
    const widget = page.locator('#parley-widget');
    await expect.poll(() => widget.getAttribute('data-state'), POLL).toBe('unavailable');
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await expect
      .poll(() => page.getByRole('log', { name: 'Conversation' }).textContent(), POLL)
      .toContain('Chat is unavailable on this site');
    expect(await page.getByLabel('Message').isDisabled()).toBe(true);
    expect(warnings.some((w) => w.includes('[parley] widget unavailable'))).toBe(true);

    const fromUnlisted = seen.filter((s) => s.origin === unlistedOrigin);
    // The browser's preflight of the config request is refused; nothing else gets through.
    expect(fromUnlisted.length).toBeGreaterThan(0);
    expect(fromUnlisted.every((s) => s.path.startsWith('/api/v1/sdk/config/') && s.status === 403)).toBe(
      true,
    );
    expect(seen.some((s) => s.path === '/api/v1/sdk/init' && s.origin === unlistedOrigin)).toBe(false);
    await page.close();
  });
});
