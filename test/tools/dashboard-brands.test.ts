// The dashboard's Brands area in Debian's Chromium against a running `herald serve`: the list, a new brand made
// from the page, and the default brand's settings edited in the page (voice, default hashtags, signature), with
// the change read back through the API and seen in the compiled context the page shows, exactly as
// GET /v1/brands/{id}/context gives it. Every page passes the audit (axe-core, layout shift, screenshot), at
// desktop and at phone width.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  skipWithoutChromium as skip,
  startDashboard,
  WAIT_MS,
  type DashboardSession,
} from '../helpers/dashboard-session.ts';
import { sidewaysOverflow } from '../helpers/dashboard-browser.ts';
import { getData } from '../helpers/dashboard-data.ts';
import { pollFor } from '../helpers/poll.ts';

let session: DashboardSession;
let t: TestApp;
let url: string;
let page: Page;
let key: string;

interface BrandView {
  id: string;
  version: number;
  voice: { descriptors: string[] };
  default_hashtags: string[];
  signature: string | null;
}

const api = <T>(pathname: string): Promise<T> => getData<T>(url, key, pathname);

describe('the Brands area in a browser', { skip }, () => {
  before(async () => {
    session = await startDashboard({ name: 'dashboard-brands' });
    ({ t, url, page } = session);
    key = await t.key();
    await session.signIn(page);
  });

  after(async () => {
    await session?.stop();
  });

  test('lists the brands and makes a new one from the page', async () => {
    await page.goto(`${url}/app/brands`);
    await page.locator(`a[href="/app/brands/${t.owner.brandId}"]`).waitFor();
    assert.match(await page.locator('table').innerText(), /default/);
    await session.audit(page, 'brands-list');
    await page.getByLabel('New brand name').fill('Acme Outdoor');
    await page.getByRole('button', { name: 'Create the brand' }).click();
    await page.waitForURL(/\/app\/brands\/brand_/);
    await page.getByTestId('brand-context').waitFor();
    const made = page.url().split('/').at(-1)!;
    const brand = await api<{ name: string; slug: string }>(`/brands/${made}`);
    assert.deepEqual([brand.name, brand.slug], ['Acme Outdoor', 'acme-outdoor']);
  });

  test('edits voice, hashtags and signature; the API and the compiled context show them', async () => {
    await page.goto(`${url}/app/brands/${t.owner.brandId}`);
    await page.getByRole('heading', { name: 'Brand settings', level: 1 }).waitFor();
    await page.getByTestId('brand-context').waitFor();
    await session.audit(page, 'brand-settings');
    const before = await api<BrandView>(`/brands/${t.owner.brandId}`);

    await page.getByLabel(/^Voice descriptors/).fill('warm\nprecise');
    await page.getByLabel(/^Formality/).selectOption('2');
    await page.getByLabel(/^Default hashtags/).fill('#herald #launchday');
    await page.getByLabel(/^Signature/).fill('— The Herald team');
    await page.getByRole('button', { name: 'Save the brand' }).click();
    await page.getByText(`Saved: version ${before.version + 1}.`).waitFor();

    const after = await api<BrandView>(`/brands/${t.owner.brandId}`);
    assert.equal(after.version, before.version + 1);
    assert.deepEqual(after.voice.descriptors, ['warm', 'precise']);
    assert.deepEqual(after.default_hashtags, ['#herald', '#launchday']);
    assert.equal(after.signature, '— The Herald team');

    const context = await api<{ text: string; version: number }>(`/brands/${t.owner.brandId}/context`);
    assert.equal(context.version, after.version);
    for (const part of ['warm', 'precise', '#launchday', '— The Herald team'])
      assert.ok(context.text.includes(part), `the compiled context holds ${part}`);
    const shown = await pollFor(
      'the page shows the new compiled context',
      async () => {
        const text = await page.getByTestId('brand-context').innerText();
        return text === context.text.trim() ? text : undefined;
      },
      WAIT_MS,
      200,
    );
    assert.ok(shown.includes('— The Herald team'));
    assert.match(await page.getByTestId('context-version').innerText(), new RegExp(`Version ${after.version}`));
    await session.audit(page, 'brand-settings-saved');
  });

  test('a stale version is refused in words, and the pages fit a phone', async () => {
    const phone = await session.context.newPage();
    await phone.setViewportSize({ width: 390, height: 800 });
    await phone.goto(`${url}/app/brands/${t.owner.brandId}`);
    await phone.getByTestId('brand-context').waitFor();
    // Another writer changes the brand after the phone read it: the phone's save is a version conflict.
    const current = await api<BrandView>(`/brands/${t.owner.brandId}`);
    const patched = await fetch(`${url}/v1/brands/${t.owner.brandId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': `b-${Date.now()}`,
      },
      body: JSON.stringify({ version: current.version, industry: 'Software' }),
    });
    assert.equal(patched.status, 200, await patched.text());
    await phone.getByLabel(/^Signature/).fill('— Someone else');
    await phone.getByRole('button', { name: 'Save the brand' }).click();
    const alert = phone.getByRole('alert').first();
    await alert.waitFor();
    assert.match(await alert.innerText(), /PUBLIC_API_VERSION_CONFLICT/);
    const overflow = await sidewaysOverflow(phone);
    assert.ok(overflow <= 0, `no sideways scrolling at phone width (${overflow} px too wide)`);
    await session.audit(phone, 'brand-settings-phone');
    await phone.goto(`${url}/app/brands`);
    await phone.locator(`a[href="/app/brands/${t.owner.brandId}"]`).waitFor();
    const listOverflow = await sidewaysOverflow(phone);
    assert.ok(listOverflow <= 0, `the list fits a phone (${listOverflow} px too wide)`);
    await session.audit(phone, 'brands-list-phone');
    await phone.goto(`${url}/app/brands/brand_does_not_exist`);
    assert.match(await phone.getByRole('alert').first().innerText(), /request req_/);
    await session.audit(phone, 'brand-not-found');
    await phone.close();
  });
});
