import { readFileSync } from 'node:fs';
import { silentLogger } from '@parley/platform';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { escapeHtml, renderDemoPage } from './widgetAssets.js';

const KEY = `pk_${'A1b2'.repeat(8)}`;
const SCRIPT = readFileSync(new URL('../../widget/widget.js', import.meta.url), 'utf8');

const readiness = { database: async () => true, pendingMigrations: async () => [] };
let app: FastifyInstance;

beforeAll(async () => {
  app = await buildApp({ logger: silentLogger(), readiness, widget: { scriptMaxAgeSeconds: 120 } });
});
afterAll(async () => {
  await app.close();
});

describe('GET /sdk/widget.js', () => {
  it('serves the widget script, cacheable, loadable from any site', async () => {
    const res = await app.inject({ method: 'GET', url: '/sdk/widget.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(SCRIPT);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=120');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
  });

  it('answers 304 to a matching If-None-Match, 200 to another', async () => {
    const { etag } = (await app.inject({ method: 'GET', url: '/sdk/widget.js' })).headers;
    const same = await app.inject({
      method: 'GET',
      url: '/sdk/widget.js',
      headers: { 'if-none-match': etag },
    });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    const other = await app.inject({
      method: 'GET',
      url: '/sdk/widget.js',
      headers: { 'if-none-match': '"x"' },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('GET /sdk/widget (demo page)', () => {
  it('without a key: the form, no widget, a strict CSP', async () => {
    const res = await app.inject({ method: 'GET', url: '/sdk/widget', headers: { host: 'api.example.com' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('<form method="get"');
    expect(res.body).toContain('http://api.example.com/sdk/widget.js');
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toMatch(/\{\{\w+\}\}/);
  });

  it('with a key and a project: embeds the widget with them', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/sdk/widget?key=${KEY}&project=proj_0123456789abcdef`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      `<script src="/sdk/widget.js" async data-public-key="${KEY}" data-project-id="proj_0123456789abcdef"></script>`,
    );
    expect(res.body).toContain(`value="${KEY}"`);
  });

  it('ignores values that are not a public key or a project id (no markup from the query)', async () => {
    for (const query of [
      `key=${KEY}&project=%22%3E%3Cscript%3Ealert(1)%3C/script%3E`,
      `key=pk_short&project=proj_1`,
      `key=${KEY}&key=${KEY}&project=proj_1`,
    ]) {
      const res = await app.inject({ method: 'GET', url: `/sdk/widget?${query}` });
      expect(res.statusCode, query).toBe(200);
      expect(res.body, query).not.toContain('<script');
      expect(res.body, query).not.toContain('alert(1)');
    }
  });

  it('escapes the Host header it shows', async () => {
    const res = await app.inject({ method: 'GET', url: '/sdk/widget', headers: { host: 'a"><b>x' } });
    expect(res.body).not.toContain('"><b>');
    expect(res.body).toContain('a&quot;&gt;&lt;b&gt;x');
  });
});

describe('renderDemoPage', () => {
  it('never lets a value add markup', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (origin, key, project) => {
        const render = (template: string) => renderDemoPage(template, { origin, key, project });
        for (const field of ['origin', 'key', 'project', 'keyOrPlaceholder', 'projectOrPlaceholder']) {
          expect(render(`{{${field}}}`)).not.toMatch(/[<>"']/);
        }
        expect(render('{{embed}}')).toBe(
          `<script src="/sdk/widget.js" async data-public-key="${escapeHtml(key)}" data-project-id="${escapeHtml(project)}"></script>`,
        );
      }),
    );
  });
});

describe('without the widget option', () => {
  it('has no widget routes', async () => {
    const bare = await buildApp({ logger: silentLogger(), readiness });
    expect((await bare.inject({ method: 'GET', url: '/sdk/widget.js' })).statusCode).toBe(404);
    expect((await bare.inject({ method: 'GET', url: '/sdk/widget' })).statusCode).toBe(404);
    await bare.close();
  });
});
