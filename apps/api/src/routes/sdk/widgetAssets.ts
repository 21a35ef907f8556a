import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

export interface WidgetAssetRouteOptions {
  /** `Cache-Control: max-age` of widget.js, seconds (default 300: a new version reaches pages within minutes). */
  scriptMaxAgeSeconds?: number;
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
};
