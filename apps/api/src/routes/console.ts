import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { consoleDistDir, consoleIsBuilt } from '@parley/console';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export interface ConsoleRouteOptions {
  /** The built console (default apps/console/dist). */
  distDir?: string;
}

/**
 * The console loads only its own files and talks only to this origin's API. Recording media may be
 * pre-signed S3 URLs (`MEDIA_STORAGE=s3`), hence `https:` for media.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self' https: blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function secureHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parley console</title></head>
<body><h1>The console is not built</h1><p>Run <code>npm run build:console</code> in the repository (npm install and
npm start do it), then reload.</p></body></html>`;

/**
 * The operator console at /console/: a built single-page app (apps/console) that calls only the
 * public and project APIs with the credential the user signs in with. The files are public; the
 * data is not. Hash routes, so only /console/ and its assets exist here.
 */
export const consoleRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, options) => {
  const root = options.distDir ?? consoleDistDir;
  app.get('/console', { schema: { hide: true } }, (_req, reply) => reply.redirect('/console/', 308));
  if (!consoleIsBuilt(root)) {
    app.get('/console/*', { schema: { hide: true } }, (_req, reply) =>
      secureHeaders(reply)
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(NOT_BUILT),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    decorateReply: false,
    index: ['index.html'],
    // Only what the build made: no directory listings, no dotfiles.
    list: false,
    dotfiles: 'deny',
    // Our own Cache-Control below (the plugin's default would be max-age=0 on everything).
    cacheControl: false,
    schemaHide: true,
    setHeaders: (res, path) => {
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('x-frame-options', 'DENY');
      // Hashed asset names never change content; index.html must be fetched again after a build.
      res.setHeader(
        'cache-control',
        path === join(root, 'index.html') ? 'no-store' : 'public, max-age=31536000, immutable',
      );
    },
  });
};
