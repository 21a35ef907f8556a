import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PublicApiKeyRecord } from '@parley/auth';
import type { SdkChannel, SdkChannelTokens } from '@parley/channels';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

export interface WidgetAssetRouteOptions {
  /** `Cache-Control: max-age` of widget.js, seconds (default 300: a new version reaches pages within minutes). */
  scriptMaxAgeSeconds?: number;
  /**
   * The pages of SDK channels' share and embed links (`/sdk/share?token=`, `/sdk/embed?token=`, made by
   * `POST /api/projects/{projectId}/sdk-channels/{channelId}/token`). Absent: no such pages (404).
   */
  channelLinks?: {
    /** Null without SDK_TOKEN_SECRET: every link is answered 503. */
    tokens: Pick<SdkChannelTokens, 'verify'> | null;
    channels: { resolve(id: string): Promise<SdkChannel | null> };
    publicKeys: { getPublicApiKey(id: string): Promise<PublicApiKeyRecord | null> };
  };
}

/** The widget's files, read once when the routes are registered (apps/api/src/widget/). */
const widgetFile = (name: string) => readFileSync(new URL(`../../widget/${name}`, import.meta.url), 'utf8');

const PUBLIC_KEY = /^pk_[0-9A-Za-z]{32}$/;
const PROJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The demo page allows its own scripts and API only; the widget's styles are an inline <style>. */
const DEMO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** One query parameter when it is a single string matching `pattern`, else undefined. */
function param(query: unknown, name: string, pattern: RegExp): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && pattern.test(value) ? value : undefined;
}

/** Fills `{{name}}` placeholders with HTML-escaped values; `embed` is markup built here from checked values. */
export function renderDemoPage(
  template: string,
  values: { origin: string; key?: string | undefined; project?: string | undefined },
): string {
  const { origin, key, project } = values;
  const ready = key !== undefined && project !== undefined;
  const fields: Record<string, string> = {
    origin: escapeHtml(origin),
    key: escapeHtml(key ?? ''),
    project: escapeHtml(project ?? ''),
    keyOrPlaceholder: escapeHtml(key ?? 'pk_…'),
    projectOrPlaceholder: escapeHtml(project ?? 'your project id'),
    status: ready
      ? 'The widget is loaded: open it with the button in the corner.'
      : 'Give a public key and its project to load the widget.',
    embed: ready
      ? `<script src="/sdk/widget.js" async data-public-key="${escapeHtml(key)}" data-project-id="${escapeHtml(project)}"></script>`
      : '',
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => fields[name] ?? '');
}

/** A share link's page: the API's own scripts and API; embeddable nowhere. */
const SHARE_CSP = DEMO_CSP;
/** An embed link's page: as the share page, but framed by the key's allowed origins only. */
const embedCsp = (origins: readonly string[]): string =>
  DEMO_CSP.replace(
    "frame-ancestors 'none'",
    `frame-ancestors ${origins.length === 0 ? "'none'" : origins.join(' ')}`,
  );

const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type LinkPage =
  | { ok: true; channel: SdkChannel; key: PublicApiKeyRecord }
  | { ok: false; status: 404 | 410 | 503; heading: string; text: string };

/** Fills the link page template (values HTML-escaped; `embed` built here from checked values). */
export function renderLinkPage(
  template: string,
  page: { title: string; heading: string; text: string; key?: string; project?: string },
): string {
  const embed =
    page.key !== undefined && page.project !== undefined
      ? `<script src="/sdk/widget.js" async data-public-key="${escapeHtml(page.key)}" data-project-id="${escapeHtml(page.project)}"></script>`
      : '';
  const fields: Record<string, string> = {
    title: escapeHtml(page.title),
    heading: escapeHtml(page.heading),
    text: escapeHtml(page.text),
    embed,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => fields[name] ?? '');
}

/**
 * The embeddable chat widget (spec 001 §4.7): `GET /sdk/widget.js`, a self-contained script a site
 * embeds with its public key, and `GET /sdk/widget`, a demo page embedding it
 * (`?key=pk_…&project=<id>`). Public and unauthenticated: the widget's requests carry the key and
 * are checked against its allowed origins by the SDK routes.
 */
export const widgetAssetRoutes: FastifyPluginAsync<WidgetAssetRouteOptions> = async (app, options) => {
  const script = widgetFile('widget.js');
  const scriptEtag = `"${createHash('sha256').update(script).digest('base64url').slice(0, 27)}"`;
  const template = widgetFile('demo.html');
  const maxAge = options.scriptMaxAgeSeconds ?? 300;

  app.get(
    '/sdk/widget.js',
    { schema: { hide: true } },
    async (request: FastifyRequest, reply: FastifyReply) => {
      reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', `public, max-age=${maxAge}`)
        .header('etag', scriptEtag)
        .header('x-content-type-options', 'nosniff')
        // Any site may load the script (pages with Cross-Origin-Embedder-Policy too); what it may do is
        // decided by the public key's allowed origins.
        .header('cross-origin-resource-policy', 'cross-origin');
      if (request.headers['if-none-match'] === scriptEtag) return reply.status(304).send();
      return script;
    },
  );

  app.get('/sdk/widget', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const html = renderDemoPage(template, {
      origin: `${request.protocol}://${request.host}`,
      key: param(request.query, 'key', PUBLIC_KEY),
      project: param(request.query, 'project', PROJECT_ID),
    });
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', DEMO_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(html);
  });

  const links = options.channelLinks;
  if (links === undefined) return;
  const linkTemplate = widgetFile('link.html');
  /** The token's channel and its public key, or why the link does not open. */
  const open = async (kind: 'share' | 'embed', token: string | undefined): Promise<LinkPage> => {
    const invalid = {
      ok: false,
      status: 404,
      heading: 'This link is not valid',
      text: 'Ask the site that gave it to you for a new one.',
    } as const;
    if (links.tokens === null)
      return {
        ok: false,
        status: 503,
        heading: 'Chat links are not available',
        text: 'This service has no SDK_TOKEN_SECRET configured.',
      };
    if (token === undefined) return invalid;
    const verified = await links.tokens.verify(token);
    if (!verified.ok) {
      return verified.reason === 'expired'
        ? { ok: false, status: 410, heading: 'This link has expired', text: 'Ask for a new link.' }
        : invalid;
    }
    if (verified.claims.kind !== kind) return invalid;
    const channel = await links.channels.resolve(verified.claims.channelId);
    if (channel === null || !channel.isActive || channel.projectId !== verified.claims.projectId)
      return invalid;
    const key = await links.publicKeys.getPublicApiKey(channel.publicApiKeyId);
    if (key === null || key.status !== 'active' || key.projectId !== channel.projectId) return invalid;
    return { ok: true, channel, key };
  };
  for (const kind of ['share', 'embed'] as const) {
    app.get(
      `/sdk/${kind}`,
      { schema: { hide: true } },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const page = await open(kind, param(request.query, 'token', TOKEN));
        reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          // The token is in the URL: never sent on to another site.
          .header('referrer-policy', 'no-referrer');
        if (!page.ok) {
          return reply
            .status(page.status)
            .header('content-security-policy', SHARE_CSP)
            .send(renderLinkPage(linkTemplate, { title: page.heading, ...page }));
        }
        const { channel, key } = page;
        return reply
          .header('content-security-policy', kind === 'embed' ? embedCsp(key.allowedOrigins) : SHARE_CSP)
          .send(
            renderLinkPage(linkTemplate, {
              title: channel.name,
              heading: kind === 'share' ? channel.name : '',
              text: kind === 'share' ? 'Open the chat with the button in the corner.' : '',
              key: key.key,
              project: channel.projectId,
            }),
          );
      },
    );
  }
};
