import { test, expect, LabPage, noteSeed } from './lab-page';

// The instructor's reset, seen from Shimul's phone: after it the app works with every guard on,
// whatever was switched off before, and a reload does not take the reset for a new one.

const SEED = 20_611;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('after a reset, a reload keeps the pending key and the retry debits once', async ({ page }) => {
  noteSeed(SEED);
  const created = await page.request.post('/api/sandboxes', { data: { seed: SEED } });
  expect(created.status(), `seed ${SEED}`).toBe(201);
  const id: string = (await created.json()).id;
  const api = `/api/sandboxes/${id}`;
  const state = async () => (await page.request.get(`${api}/state`)).json();
  const lab = new LabPage(page);
  await page.goto(`/lab/${id}`);
  await lab.hydrated();

  // The instructor switches the key, the table and the ledger's guard off from the API…
  const off = { key_persistence: false, idempotency_table: false, ledger_unique: false };
  expect((await page.request.put(`${api}/safeguards`, { data: off })).ok()).toBeTruthy();
  await expect(lab.safeguard('key_persistence')).not.toBeChecked();

  // …then presses reset on the screen: every guard is back on.
  await lab.resetLab();
  await expect
    .poll(async () => (await state()).safeguards, { message: `seed ${SEED}` })
    .toMatchObject({ key_persistence: true, idempotency_table: true, ledger_unique: true });
  await expect(lab.safeguard('key_persistence')).toBeChecked();
  // A reset sets the clock live at ×1; ×10 lets the phone's 5 s timeout pass in half a second.
  expect((await page.request.post(`${api}/clock`, { data: { speed: 10 } })).ok()).toBeTruthy();
  expect((await page.request.put(`${api}/faults`, { data: { response_loss_pct: 100 } })).ok()).toBeTruthy();

  await lab.send.click();
  await lab.phoneSays('unknown');
  await expect(lab.key).toHaveAttribute('data-pending', 'true');
  const key = (await lab.key.textContent())!;
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  const stored = () => page.evaluate((k) => window.localStorage.getItem(k), `pocketpay:${id}:pending`);
  expect(await stored(), `seed ${SEED}`).toContain(key);

  await page.reload();
  await lab.hydrated();
  // The app takes its pending transfer back, unfinished, without sending it; the key is still
  // the one kept, on screen and in storage.
  await lab.phoneSays('unfinished');
  await expect(lab.key).toHaveText(key);
  await expect(lab.key).toHaveAttribute('data-pending', 'true');
  expect(await stored(), `seed ${SEED}`).toContain(key);

  // The network heals; the next tap sends the same key and gets the first debit's receipt.
  expect((await page.request.put(`${api}/faults`, { data: { response_loss_pct: 0 } })).ok()).toBeTruthy();
  await expect(lab.send).toHaveAttribute('aria-busy', 'false');
  await lab.send.click();
  await lab.phoneSays('receipt');
  await expect(lab.key).toHaveText(key);
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  const damage = (await state()).damage;
  expect(damage.debits, `seed ${SEED}`).toBe(1);
  expect(damage.double_charges, `seed ${SEED}`).toBe(0);
  lab.expectNoErrors();
});

test('a reset and a preset load start the meter, the timeline and the attacks afresh', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(1);
  await page.getByTestId('preset-load').click();
  await expect(page.locator('[data-testid="chapter-step"][data-step="1"]')).toHaveAttribute('data-done', 'true');
  const api = `/api/sandboxes/${lab.sandboxId()}`;
  await lab.speedUp(api, 10);
  await lab.tap();
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '1');
  // A mark selected now dims the rest of this timeline…
  await lab.events.first().click();
  await expect(page.locator('.lane-row.dimmed').first()).toBeVisible();

  // …and the next chapter's preset starts a new one: nothing selected, nothing dimmed, and
  // the intents are this run's only.
  await page.getByTestId('chapter-next').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  await page.getByTestId('preset-load').click();
  // The sandbox holds the tap of chapter 01: the start asks before it clears it.
  await expect(page.getByTestId('wipe-ask')).toHaveAttribute('data-transfers', '1');
  await page.getByTestId('wipe-confirm').click();
  await expect(lab.kind('scenario_loaded').or(lab.kind('sandbox_reset')).first()).toBeVisible();
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '0');
  await expect(page.locator('.lane-row.dimmed')).toHaveCount(0);
  await expect(page.locator('.lane-row.selected')).toHaveCount(0);
  await lab.speedUp(api, 10);
  await lab.tap();
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '1');

  // An attack's answers belong to the run they were sent in.
  await page.getByTestId('chapter-close').click();
  await expect(page.getByTestId('chapter')).toHaveCount(0);
  await page.getByTestId('attack-race').click();
  await expect(page.getByTestId('attack-result').locator('li').first()).toBeVisible({ timeout: 20_000 });
  await lab.resetLab();
  await expect(page.getByTestId('attack-result').locator('li')).toHaveCount(0);
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '0');
  lab.expectNoErrors();
});

// What a student sees, not the guard: this passes without the phone's check of a reset it never
// heard of (`kept_before`, app/lab/phone/storage.rs) too, as no run here has made the old page
// resend; it holds the behaviour, while that check guards a trigger not yet reproduced.
test('after an unknown outcome, a preset loaded by a link sends nothing before a tap', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const api = `/api/sandboxes/${lab.sandboxId()}`;
  await lab.speedUp(api, 10);
  await lab.putFaults(api, { response_loss_pct: 100 });
  await lab.send.click();
  await lab.phoneSays('unknown');
  await expect(lab.key).toHaveAttribute('data-pending', 'true');

  // The student leaves the lab (no lab page is open to hear of what comes next), then follows a
  // preset's link, as from the quiz: the same browser's sandbox, reset by the link before any
  // page of it could hear of the reset.
  await page.goto('/glossary');
  await page.goto('/lab?scenario=2&variant=guarded');
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}$/);
  await lab.hydrated();
  await expect(lab.safeguard('key_persistence')).toBeChecked();
  await page.waitForTimeout(1_500);
  await expect(lab.phoneMessage).toHaveAttribute('data-state', 'ready');
  await expect(lab.key).toHaveAttribute('data-pending', 'false');
  // Nothing reached the server: no request on the new run's timeline, no debit, and the
  // preset's screen says ready (a resumed send the reset cut off would hide behind that).
  await expect(lab.kind('request_sent'), 'a request went out before anyone tapped').toHaveCount(0);
  const state = await (await page.request.get(`${api}/state`)).json();
  expect(state.damage.debits, 'Shimul was debited before anyone tapped').toBe(0);
  expect(state.damage.intents, 'a transfer went out before anyone tapped').toBe(0);
  // The next tap is a new decision, and it goes out.
  await lab.speedUp(api, 10);
  await lab.tap();
  const after = await (await page.request.get(`${api}/state`)).json();
  expect(after.damage.intents).toBe(1);
  lab.expectNoErrors();
});

test('a reset during the phone library’s backoff ends that tap: its retry never goes out', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED + 1);
  // The answer is lost; the phone gives up after 1 s and its library waits 6 s to retry.
  await lab.putFaults(api, {
    response_loss_pct: 100,
    phone_timeout_ms: 1_000,
    auto_retries: 1,
    retry_backoff_ms: 6_000,
  });
  // The phone reads its library's settings from the screen's state: wait until it has them.
  await expect(lab.fault('auto_retries')).toHaveValue('1');
  await expect(lab.fault('retry_backoff_ms')).toHaveValue('6000');
  await lab.send.click();
  await lab.phoneSays('backoff');
  // The instructor resets mid-backoff: the app is reinstalled, and the old tap is gone with it.
  await lab.resetLab();
  await expect(lab.kind('sandbox_reset')).toHaveCount(1);
  await expect(lab.kind('request_sent')).toHaveCount(0);
  await lab.phoneSays('ready');
  // Past the old backoff, nothing has gone out by itself.
  await page.waitForTimeout(7_000);
  await expect(lab.kind('request_sent'), 'the old tap was retried after the reset').toHaveCount(0);
  const state = await (await page.request.get(`${api}/state`)).json();
  expect(state.damage.debits, `seed ${SEED + 1}: debited by a retry after the reset`).toBe(0);
  await expect(lab.phoneMessage).toHaveAttribute('data-state', 'ready');
  lab.expectNoErrors();
});
