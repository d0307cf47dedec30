import { test, expect, LabPage, noteSeed } from './lab-page';
import type { Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

// The lab as a newcomer reads it: routine jobs folded, the selected event explained in words,
// the switches beside the phone by their human names, and at a phone's width a readable event
// list, folded inspector and instructor's panel, a bar that stays in view, nothing wider than
// the screen, and no serious accessibility fault in either language at either width.

const SEED = 52_525;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

/** The story through the API: no kept key, no table, the first answer lost, a second tap with
 * a new key; then two days pass. Returns the sandbox's API path. */
async function story(page: Page): Promise<string> {
  noteSeed(SEED);
  const created = await page.request.post('/api/sandboxes', { data: { seed: SEED } });
  expect(created.status(), `seed ${SEED}`).toBe(201);
  const api = `/api/sandboxes/${(await created.json()).id}`;
  const ok = async (p: Promise<{ ok(): boolean; status(): number }>, what: string) => {
    const r = await p;
    expect(r.ok(), `${what}: ${r.status()}`).toBeTruthy();
  };
  await ok(page.request.put(`${api}/safeguards`, { data: { key_persistence: false, idempotency_table: false } }), 'safeguards');
  await ok(page.request.put(`${api}/faults`, { data: { response_loss_pct: 100 } }), 'faults');
  const intent = '5b8f7d3e-1c2a-4b5e-9f00-525252525252';
  const send = (key: string) =>
    page.request.post(`${api}/transfers`, {
      headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': key, 'Lab-Intent': intent },
      data: { to: 'tithi', amount: 500 },
    });
  expect((await send('first-key-52525')).status()).toBe(504);
  await ok(page.request.put(`${api}/faults`, { data: { response_loss_pct: 0 } }), 'faults');
  expect((await send('second-key-52525')).status()).toBe(201);
  for (const _ of [1, 2]) await ok(page.request.post(`${api}/clock`, { data: { advance_seconds: 86_400 } }), 'clock');
  return api;
}

async function openStory(page: Page): Promise<LabPage> {
  const api = await story(page);
  const lab = new LabPage(page);
  await page.goto(`/lab/${api.split('/').pop()}`);
  await lab.hydrated();
  await expect(lab.kind('debited')).toHaveCount(2);
  return lab;
}

test('routine jobs fold into rows that open on a tap, and the escaped debit stays near the top', async ({ page }) => {
  const lab = await openStory(page);
  const folds = page.getByTestId('timeline-fold');
  await expect(folds.first()).toBeVisible();
  await expect(lab.kind('inbox_cleaned')).toHaveCount(0);
  await expect(lab.kind('log_retention_applied')).toHaveCount(0);
  const folded = Number(await page.getByTestId('routine-folded').getAttribute('data-count'));
  expect(folded).toBeGreaterThan(50);
  // Without the fold the escaped debit sat under about a hundred routine rows; now it is
  // among the first twenty rows of the list.
  const rows = await page.locator('.lane-rows > li').evaluateAll((els) =>
    els
      .map((e) => ({ top: parseFloat((e as HTMLElement).style.top), escaped: !!e.querySelector('[data-outcome="escaped"]') }))
      .sort((a, b) => a.top - b.top)
      .map((r) => r.escaped),
  );
  expect(rows.indexOf(true)).toBeGreaterThanOrEqual(0);
  expect(rows.indexOf(true)).toBeLessThan(20);

  // A tap opens one run; the switch shows them all.
  const first = folds.first();
  const count = Number(await first.getAttribute('data-count'));
  const before = await lab.events.count();
  await first.click();
  await expect(lab.events).toHaveCount(before + count);
  await page.getByTestId('show-routine').check();
  await expect(folds).toHaveCount(0);
  await expect.poll(() => lab.kind('inbox_cleaned').count()).toBeGreaterThan(20);
  await page.getByTestId('show-routine').uncheck();
  await expect(folds.first()).toBeVisible();
  lab.expectNoErrors();
});

test('a selected event is explained in words: what happened, and which guard would have caught it', async ({ page }) => {
  const lab = await openStory(page);
  const details = page.getByTestId('event-details');
  // The whole row selects, not only its mark: tap the sentence beside it.
  const row = page.locator('.lane-row', { has: page.locator('[data-kind="debited"][data-outcome="escaped"]') });
  await row.locator('.lane-text').click();
  await expect(row.locator('.mark')).toHaveAttribute('aria-pressed', 'true');
  await expect(details.getByTestId('event-what')).toContainText('TXN-88413');
  await expect(details.getByTestId('event-meaning')).toContainText('শিমুল');
  const guard = details.getByTestId('event-guard');
  await expect(guard).toHaveAttribute('data-role', 'would-catch');
  // The second tap came with a new key: only the app keeping its key would have made it a
  // retry the server recognises.
  await expect(guard).toHaveAttribute('data-guard', 'key_persistence');
  await expect(guard).toContainText('অ্যাপ key মনে রাখে');
  await expect(guard).toContainText('key_persistence');
  // The raw facts are there, folded, for whoever wants them.
  await expect(details.locator('.details-json')).toBeHidden();
  await details.locator('.details-facts summary').click();
  await expect(details.locator('.details-json')).toContainText('"would_catch"');

  // An answer's status code comes with words.
  const delivered = page.locator('.lane-row', { has: page.locator('[data-kind="response_delivered"]') }).first();
  await delivered.click();
  await expect(details.getByTestId('event-status')).toHaveAttribute('data-status', '201');
  await expect(details.getByTestId('event-status')).toContainText('২০১: তৈরি হলো');
  lab.expectNoErrors();
});

test('a caught copy names its guard, and the same key twice names the table and the ledger', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED);
  const send = () =>
    page.request.post(`${api}/transfers`, {
      headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': 'one-key-52525' },
      data: { to: 'tithi', amount: 500 },
    });
  expect((await send()).status()).toBe(201);
  expect((await send()).status()).toBe(201);
  await lab.langSwitch.click();
  // Rows move down as new events arrive: let the pipeline finish before tapping one.
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.damage).toHaveAttribute('data-in-flight', 'false');
  const replayed = page.locator('.lane-row', { has: page.locator('[data-kind="response_replayed"]') });
  await replayed.click();
  const guard = page.getByTestId('event-details').getByTestId('event-guard');
  await expect(guard).toHaveAttribute('data-role', 'caught');
  await expect(guard).toHaveAttribute('data-guard', 'idempotency_table');
  await expect(guard).toContainText('The server remembers each key');

  // With the table and the ledger's guard off, the same key debits twice; the explanation
  // names both.
  const put = await page.request.put(`${api}/safeguards`, { data: { idempotency_table: false, ledger_unique: false } });
  expect(put.ok()).toBeTruthy();
  expect((await send()).status()).toBe(201);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
  await expect(lab.damage).toHaveAttribute('data-in-flight', 'false');
  const escaped = page.locator('.lane-row', { has: page.locator('[data-kind="debited"][data-outcome="escaped"]') });
  await escaped.click();
  await expect(guard).toHaveAttribute('data-guard', 'idempotency_table ledger_unique');
  await expect(guard).toContainText("The ledger's last line");
  lab.expectNoErrors();
});

test('the switches sit beside the phone, each by its human name and then its id', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.openSeeded(SEED);
  const switches = page.getByTestId('switches');
  const phone = await page.locator('.phone-panel').first().boundingBox();
  const box = await switches.boundingBox();
  // Right under Shimul's phone, in the same column.
  expect(Math.abs(box!.x - phone!.x)).toBeLessThan(2);
  expect(box!.y - (phone!.y + phone!.height)).toBeLessThan(40);
  const label = page.locator('label[for="safeguard-key_persistence"]');
  await expect(label.locator('.safeguard-name')).toHaveText('অ্যাপ key মনে রাখে');
  await expect(label.locator('code')).toHaveText('key_persistence');
  // A group says how many of its guards are off.
  await lab.setSafeguard('key_persistence', false);
  await expect(page.locator('[data-group="switches-phone"] .switch-off-count')).toHaveAttribute('data-off', '1');
  lab.expectNoErrors();
});

test("at a phone's width: a readable list, folded panels, a bar that stays in view, nothing too wide", async ({ browser }) => {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const lab = await openStory(page);
  // Each event row shows its time, its lane and its sentence.
  const row = page.locator('.lane-row', { has: page.locator('[data-kind="debited"][data-outcome="escaped"]') });
  await row.scrollIntoViewIfNeeded();
  await expect(row.locator('.lane-text')).toBeVisible();
  await expect(row.locator('.lane-text')).toContainText('TXN-88413');
  await expect(row.locator('.lane-time')).toBeVisible();
  await expect(row.locator('.lane-chip')).toHaveText('ledger');
  const text = await row.locator('.lane-text').boundingBox();
  expect(text!.width).toBeGreaterThan(200);
  // The bar with the balances and the verdict stays at the top while the student scrolls.
  const bar = page.getByTestId('summary-bar');
  await expect(bar).toHaveAttribute('data-harmed', 'true');
  // It names the harm: Shimul was charged twice, so the money is wrong.
  await expect(bar).toHaveAttribute('data-verdict', 'money_wrong');
  await expect(page.getByTestId('summary-damage')).toHaveText(/Money wrong|টাকার হিসাব ভুল/);
  expect((await bar.boundingBox())!.y).toBeLessThan(5);
  await expect(page.getByTestId('summary-shimul')).toHaveAttribute('data-value', '1000');
  // The inspector and the instructor's panel start folded, and open on a tap.
  await expect(page.locator('.inspector details.fold')).not.toHaveAttribute('open', '');
  await expect(page.locator('.instructor details.fold')).not.toHaveAttribute('open', '');
  await expect(lab.reset).toBeHidden();
  await page.locator('.instructor details.fold > summary').click();
  await expect(lab.reset).toBeVisible();
  // Nothing wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  lab.expectNoErrors();
  await context.close();
});

for (const lang of ['bn', 'en']) {
  for (const [name, options] of [['laptop', {}], ['phone', PHONE]] as const) {
    test(`no serious accessibility fault with an event selected (${lang}, ${name})`, async ({ browser }) => {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      if (lang === 'en') await context.addCookies([{ name: 'pocketpay_lang', value: 'en', url: 'http://127.0.0.1/' }]);
      const lab = await openStory(page);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await page.locator('.lane-row', { has: page.locator('[data-outcome="escaped"]') }).first().click();
      await expect(page.getByTestId('event-guard')).toBeVisible();
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`)).toEqual([]);
      await context.close();
    });
  }
}
