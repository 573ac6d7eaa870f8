// What every browser test of the dashboard starts from (test/tools/dashboard*.test.ts): the built dashboard, a
// `herald serve --role all` on a fresh test database whose owner has a password, Debian's Chromium with one page in
// a fixed time zone, and the audit every page gets (axe-core, layout shift, a kept screenshot).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildTestApp, TEST_SECRET, type TestApp } from './app.ts';
import { auditPage, CHROMIUM, launchChromium, sidewaysOverflow } from './dashboard-browser.ts';
import { freePort } from './ports.ts';
import { spawnHerald, type HeraldProcess } from './processes.ts';
import { setPassword } from '../../src/features/users/users.service.ts';
import { buildWeb } from '../../scripts/build-web.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const OWNER = { email: 'owner@test.local', password: 'correct horse battery staple' };
/** The ceiling of every wait for the page or the server (a poll returns as soon as its condition holds). */
export const WAIT_MS = 90_000;
/** `describe(…, { skip })`: the reason the browser tests cannot run here, or false. */
export const skipWithoutChromium = existsSync(CHROMIUM) ? false : `needs Debian's Chromium at ${CHROMIUM}`;

export interface DashboardSession {
  t: TestApp;
  /** Herald's base URL, e.g. http://127.0.0.1:4321. */
  url: string;
  server: HeraldProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Where this run's screenshots go (printed once). */
  shots: string;
  /** A scratch folder removed by stop() (files to upload, downloads). */
  tmp: string;
  /** Audits the page (no serious or critical axe-core violation, layout shift under 0.1) and keeps its screenshot. */
  audit(p: Page, name: string): Promise<void>;
  /** Signs in on /app and waits for the first signed-in page. */
  signIn(p: Page, email?: string, password?: string): Promise<void>;
  stop(): Promise<void>;
}

export interface DashboardOptions {
  /** The screenshot folder's prefix, e.g. "dashboard-calendar". */
  name: string;
  /** The browser's IANA time zone (default Europe/Paris). */
  timezoneId?: string;
  /** Extra environment for `herald serve`. */
  env?: Record<string, string>;
}

export async function startDashboard(options: DashboardOptions): Promise<DashboardSession> {
  const built = await buildWeb();
  assert.notEqual(built, 'no-vite', 'Vite is a dev dependency: the dashboard must build');
  const tmp = await mkdtemp(path.join(tmpdir(), 'herald-dashboard-'));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const shots = path.join(ROOT, 'test', '.tmp', `${options.name}-screenshots-${stamp}`);
  await mkdir(shots, { recursive: true });
  console.log(`# dashboard screenshots: ${shots}`);
  const t = await buildTestApp();
  await setPassword(t.container.pool, OWNER.email, OWNER.password);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawnHerald(['serve', '--role', 'all'], {
    DATABASE_URL: t.db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    HOST: '127.0.0.1',
    PORT: String(port),
    HERALD_PUBLIC_URL: url,
    HERALD_DATA_DIR: path.join(tmp, 'data'),
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
    ...options.env,
  });
  await server.url;
  const browser = await launchChromium();
  // bypassCSP: only so that axe-core can be injected; Herald's CSP allows no inline script.
  const context = await browser.newContext({
    timezoneId: options.timezoneId ?? 'Europe/Paris',
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  // A shared 2-core CI machine can be slow: every wait has a generous ceiling rather than Playwright's 30 s.
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  const counter = { n: 0 };
  return {
    t,
    url,
    server,
    browser,
    context,
    page,
    shots,
    tmp,
    async audit(p, name) {
      const { violations, shift, screenshot } = await auditPage(p, shots, name, counter);
      assert.deepEqual(
        violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        [],
        `${name}: axe-core serious or critical violations (${screenshot})`,
      );
      assert.ok(shift < 0.1, `${name}: cumulative layout shift ${shift} (${screenshot})`);
    },
    async signIn(p, email = OWNER.email, password = OWNER.password) {
      await p.goto(`${url}/app/`);
      await p.getByLabel('Email').fill(email);
      await p.getByLabel('Password').fill(password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    },
    async stop() {
      await browser.close();
      await server.stop();
      await t.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Opens each `[pathname, h1 heading, audit name]` at phone width (390 × 844), waits until nothing is loading,
 * audits it and checks that nothing scrolls sideways.
 */
export async function auditAtPhoneWidth(
  session: DashboardSession,
  pages: Array<[pathname: string, heading: string, name: string]>,
): Promise<void> {
  const phone = await session.context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  for (const [where, heading, name] of pages) {
    await phone.goto(`${session.url}${where}`);
    await phone.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await phone.getByText(/^Loading/).waitFor({ state: 'detached' });
    await session.audit(phone, name);
    const overflow = await sidewaysOverflow(phone);
    assert.ok(overflow <= 0, `${where}: no sideways scrolling at 390 px (${overflow} px too wide)`);
  }
  await phone.close();
}
