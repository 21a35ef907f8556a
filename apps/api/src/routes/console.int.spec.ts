import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@parley/platform';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { CONSOLE_CSP } from './console.js';

/** The console's files as the API serves them: a build made here, and one that is missing. */
const readiness = { database: async () => true, pendingMigrations: async (): Promise<string[]> => [] };
let built: string;
let empty: string;
let app: FastifyInstance;
let unbuilt: FastifyInstance;

beforeAll(async () => {
  built = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(built, 'assets'));
  writeFileSync(
    join(built, 'index.html'),
    '<!doctype html><title>Parley console</title><div id="app"></div>',
  );
  writeFileSync(join(built, 'assets/index-abc123.js'), 'console.log("app")');
  writeFileSync(join(built, '.env'), 'SECRET=1');
  empty = mkdtempSync(join(tmpdir(), 'console-empty-'));
  app = await buildApp({ logger: silentLogger(), readiness, console: { distDir: built } });
  unbuilt = await buildApp({ logger: silentLogger(), readiness, console: { distDir: empty } });
});
afterAll(async () => {
  await app.close();
  await unbuilt.close();
  rmSync(built, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describe('GET /console', () => {
  it('redirects to /console/ permanently', async () => {
    const res = await app.inject('/console');
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('/console/');
  });

  it('serves index.html at /console/, never cached, with a strict CSP and no referrer', async () => {
    const res = await app.inject('/console/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<div id="app">');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('serves hashed assets as immutable, and nothing outside the build', async () => {
    const asset = await app.inject('/console/assets/index-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await app.inject('/console/.env')).statusCode).not.toBe(200);
    expect((await app.inject('/console/assets/')).statusCode).toBe(404);
    expect((await app.inject('/console/../package.json')).statusCode).toBe(404);
    expect((await app.inject('/console/missing.js')).statusCode).toBe(404);
  });

  it('says how to build the console when it is not built', async () => {
    const res = await unbuilt.inject('/console/');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('npm run build:console');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = (await app.inject('/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});
