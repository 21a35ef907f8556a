import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '@parley/platform/testing';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * The console end to end: a real `parley start` (API and worker in one process, as the README's
 * start command runs it), a seeded demo, and Debian's headless Chromium driven by playwright-core.
 * Without /usr/bin/chromium the browser suites skip loudly, and fail under CI=true.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: the console browser tests cannot run`);
  console.warn(`SKIPPING the console browser tests: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

export const repoRoot = resolve(import.meta.dirname, '../../../..');
const parleyBin = join(repoRoot, 'apps/cli/bin/parley.js');
/** Screenshots for the README land here when CONSOLE_SCREENSHOTS=1. */
export const screenshotDir = join(repoRoot, 'docs/console');

/** A laptop screen. */
export const VIEWPORT = { width: 1366, height: 768 };

/** What `parley seed --json` prints (apps/cli/src/commands/seed.ts SeedSummary), as far as tests use it. */
export interface SeedSummary {
  tenantId: string;
  projectId: string;
  projectSlug: string;
  keys: { analytics: string; ingest: string; recordings: string; console: string };
  sessions: number;
  recordings: {
    sessions: Array<{ sessionId: string; status: string; reasons: string[]; shows: string }>;
  };
}

export interface ConsoleWorld {
  /** `http://127.0.0.1:<port>`; the console is at `${baseUrl}/console/`. */
  baseUrl: string;
  tenantId: string;
  projectId: string;
  /** A platform key with every scope the console uses (the seed's console key). */
  consoleKey: string;
  /** The seed's summary; null on the embedded first-start path (the demo was seeded by `parley start`). */
  seed: SeedSummary | null;
  browser: Browser;
  /**
   * A fresh browser context and page at the laptop viewport. Errors the page logs (CSP violations
   * included) and requests whose URL holds the key are collected in `problems`.
   */
  newPage(): Promise<Page>;
  /** Opens /console/ and signs in with the console key. */
  signIn(page: Page): Promise<void>;
  /** Saves docs/console/<name>.png when CONSOLE_SCREENSHOTS=1 (and always to the run's temp dir). */
  screenshot(page: Page, name: string): Promise<string>;
  /** Console errors, page errors and secret-bearing URLs seen so far; tests expect none. */
  problems: string[];
  /** The server's output so far (for failure messages). */
  output(): string;
  /** Runs `parley <args>` against this world's Parley (its data directory or database) and returns stdout. */
  cli(args: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface ConsoleWorldOptions {
  /**
   * true: the README's path exactly: `parley start` with no DATABASE_URL on a fresh data directory,
   * whose first start seeds the demo and writes .parley/console-key. false (default): a test
   * database of this run and `parley seed --json`.
   */
  embedded?: boolean;
  /** Sessions `parley seed` makes (not embedded); default 80. */
  sessions?: number;
  /** More environment for `parley start` (e.g. JWT_SECRET). */
  env?: Record<string, string>;
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: 'json', LOG_LEVEL: 'warn', ...extra };
}

function waitFor(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
  log: () => string,
): Promise<string> {
  return new Promise((res, rej) => {
    let seen = '';
    const timer = setTimeout(
      () => rej(new Error(`no ${pattern} within ${timeoutMs} ms:\n${log()}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        res(m[1] ?? m[0]);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      rej(new Error(`parley exited with ${code}:\n${log()}`));
    });
  });
}

function runToEnd(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [parleyBin, ...args], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`parley ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) res(stdout);
      else rej(new Error(`parley ${args.join(' ')} exited ${code}\n${stderr}`));
    });
  });
}

/** Waits until every projection has caught up with the log (the worker of `parley start` runs them). */
async function waitForProjections(baseUrl: string, key: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/api/v1/projections`, { headers: { 'x-api-key': key } });
    if (response.ok) {
      const body = (await response.json()) as {
        projections: Array<{ state: string; generations: Array<{ status: string; eventsBehind: number }> }>;
      };
      // Every projection registered, ok, and its live generation at the head (an unregistered one
      // has no generation yet: it is not caught up).
      const caughtUp = body.projections.every(
        (p) => p.state === 'ok' && p.generations.some((g) => g.status === 'live' && g.eventsBehind === 0),
      );
      if (body.projections.length > 0 && caughtUp) return;
    }
    if (Date.now() > deadline) throw new Error('the projections did not catch up within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startConsoleWorld(options: ConsoleWorldOptions = {}): Promise<ConsoleWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-console-'));
  const shots = mkdtempSync(join(tmpdir(), 'parley-console-shots-'));
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
  const env = cleanEnv({ PARLEY_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...options.env });
  if (!options.embedded) {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url;
  }
  let log = '';
  const server = spawn(process.execPath, [parleyBin, 'start'], { cwd: repoRoot, env });
  server.stdout.on('data', (d) => (log += d));
  server.stderr.on('data', (d) => (log += d));
  const output = () => log.slice(-8_000);
  let browser: Browser | null = null;
  const close = async () => {
    await browser?.close().catch(() => {});
    if (server.exitCode === null) {
      server.kill('SIGINT');
      await new Promise((r) => server.once('close', r));
    }
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The embedded first start prints its banner once it serves, and again once the demo is made.
    const ready = options.embedded
      ? /Parley is running at (http:\/\/\S+)[\s\S]*sign in with the demo console key/
      : /Parley is running at (http:\/\/\S+)/;
    const baseUrl = await waitFor(server, ready, 180_000, output);
    let seed: SeedSummary | null = null;
    let consoleKey: string;
    if (options.embedded) {
      consoleKey = readFileSync(join(dataDir, 'console-key'), 'utf8').trim();
    } else {
      const seedEnv = { ...env, PORT: new URL(baseUrl).port };
      seed = JSON.parse(
        await runToEnd(['seed', '--sessions', String(options.sessions ?? 80), '--json'], seedEnv),
      ) as SeedSummary;
      consoleKey = seed.keys.console;
    }
    const me = (await (
      await fetch(`${baseUrl}/api/v1/me`, { headers: { 'x-api-key': consoleKey } })
    ).json()) as {
      tenantId: string;
      projects: Array<{ id: string }>;
    };
    const projectId = me.projects[0]!.id;
    await waitForProjections(baseUrl, consoleKey);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const problems: string[] = [];
    const b = browser;
    return {
      baseUrl,
      tenantId: me.tenantId,
      projectId,
      consoleKey,
      seed,
      browser: b,
      problems,
      output,
      cli: (args) => runToEnd(args, { ...env, PORT: new URL(baseUrl).port }),
      async newPage() {
        const context = await b.newContext({ viewport: VIEWPORT });
        const page = await context.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('request', (r) => {
          if (r.url().includes(consoleKey)) problems.push(`a request URL holds the key: ${r.method()}`);
        });
        page.on('framenavigated', (f) => {
          const url = f.url();
          if (url.includes(consoleKey) || url.includes('/media/content/')) {
            problems.push('the address bar held a secret');
          }
        });
        return page;
      },
      async signIn(page) {
        await page.goto(`${baseUrl}/console/`);
        await page.getByLabel('API key or JWT').fill(consoleKey);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Screens' }).waitFor();
      },
      async screenshot(page, name) {
        const path = join(shots, `${name}.png`);
        await page.screenshot({ path, fullPage: false });
        if (process.env.CONSOLE_SCREENSHOTS === '1') {
          mkdirSync(screenshotDir, { recursive: true });
          await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
        }
        return path;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
