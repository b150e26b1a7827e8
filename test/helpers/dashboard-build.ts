import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv, type TestPlatform } from './app.js';
import { freePort } from './built-processes.js';
import type { RunningWorkers } from '../../src/workers.js';

/** Debian's Chromium, driven through playwright-core; the browser tests skip, saying so, without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** How long a browser step may wait for a selector or a state. */
export const WAIT = 60_000;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Every file the dashboard's build reads (its sources, page and Vite config), in a stable order. */
function dashboardSources(dir = path.resolve('dashboard')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== 'test' && e.name !== 'node_modules')
    .flatMap((e) => (e.isDirectory() ? dashboardSources(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/**
 * The dashboard built from the sources under test (not whatever dist/ holds), once per version of those
 * sources: the browser test files of one run share the folder, named after the sources' hash, and a
 * later run with the same sources reuses it. Built into a folder of its own and renamed into place, so
 * two files building at once never see half a build.
 */
export function buildDashboard(): string {
  const hash = createHash('sha256');
  for (const file of dashboardSources()) hash.update(path.relative(process.cwd(), file)).update('\0').update(readFileSync(file));
  const outDir = path.join(tmpdir(), `svc-dashboard-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(path.join(outDir, 'index.html'))) return outDir;
  const building = mkdtempSync(`${outDir}-building-`);
  execFileSync(process.execPath, [path.resolve('node_modules/vite/bin/vite.js'), 'build', '--config', 'dashboard/vite.config.ts', '--outDir', building, '--emptyOutDir', '--logLevel', 'warn'], { stdio: 'inherit' });
  try {
    renameSync(building, outDir);
  } catch {
    // Another file finished the same build first.
    rmSync(building, { recursive: true, force: true });
  }
  return outDir;
}

/** A served dashboard, its platform and a browser: what a browser test file works with. */
export interface DashboardSession {
  env: TestEnv;
  p: TestPlatform;
  origin: string;
  browser: Browser | undefined;
  /** A page of a fresh browser context, its waits bounded by WAIT. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** A new page signed in with the platform's credentials, on the overview. */
  signedIn(viewport?: { width: number; height: number }): Promise<Page>;
  /** Signs in with the keyboard only: type the id, Tab, type the secret, Enter. */
  signInWithKeyboard(page: Page, clientId: string, clientSecret: string): Promise<void>;
  /** Navigates by the hash route and waits for the page's heading. */
  go(page: Page, hash: string, heading: string | RegExp): Promise<void>;
}

/**
 * The dashboard against a real server for this test file (API on a random port, real Postgres and Redis,
 * the queue workers when asked), started before its tests and stopped after them.
 */
export function useDashboard(o: { overrides?: Record<string, string>; workers?: boolean; platformName?: string } = {}): DashboardSession {
  let workers: RunningWorkers | undefined;
  const s = {
    async newPage(viewport = { width: 1280, height: 800 }) {
      const page = await (await s.browser!.newContext({ viewport })).newPage();
      page.setDefaultTimeout(WAIT);
      return page;
    },
    async signedIn(viewport = { width: 1280, height: 900 }) {
      const page = await s.newPage(viewport);
      await page.goto(`${s.origin}/dashboard`);
      await page.getByLabel('Client id').fill(s.p.clientId);
      await page.getByLabel('Client secret').fill(s.p.clientSecret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      return page;
    },
    async signInWithKeyboard(page: Page, clientId: string, clientSecret: string) {
      await page.goto(`${s.origin}/dashboard`);
      await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
      await page.keyboard.type(clientId);
      await page.keyboard.press('Tab');
      await page.keyboard.type(clientSecret);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
    },
    async go(page: Page, hash: string, heading: string | RegExp) {
      await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    },
  } as DashboardSession;
  beforeAll(async () => {
    const dashboardDir = buildDashboard();
    const port = await freePort();
    s.origin = `http://127.0.0.1:${port}`;
    s.env = await createTestEnv({ PUBLIC_BASE_URL: s.origin, DASHBOARD_DIR: dashboardDir, ...o.overrides });
    await s.env.app.listen({ port, host: '127.0.0.1' });
    if (o.workers) workers = s.env.startWorkers();
    s.p = await s.env.platform({ name: o.platformName ?? 'Acme Payments' });
    if (HAS_CHROMIUM) {
      const { chromium } = await import('playwright-core');
      s.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    } else console.warn(`dashboard browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  }, 180_000);
  afterAll(async () => {
    await s.browser?.close();
    await workers?.close();
    await s.env?.close();
  });
  return s;
}
