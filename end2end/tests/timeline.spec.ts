import { test, expect, LabPage } from './lab-page';
import type { Locator } from '@playwright/test';

// The live timeline (issue 6): lanes, chains, counters, rewind, run links, shortcuts.

/** Whether a mark sits inside the column of its lane's header. */
async function inLane(lab: LabPage, mark: Locator): Promise<boolean> {
  const layer = (await mark.getAttribute('data-layer'))!;
  const head = lab.page.locator(`.lane-head [data-lane="${layer}"]`);
  const [m, h] = [await mark.boundingBox(), await head.boundingBox()];
  if (!m || !h) return false;
  const centre = m.x + m.width / 2;
  return centre >= h.x && centre <= h.x + h.width;
}

test('a scripted run puts each outcome on its lane', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  await lab.send.dblclick();
  await lab.phoneSays('receipt');
  await lab.setSafeguard('key_persistence', false);
  await lab.setSafeguard('idempotency_table', false);
  await lab.setFault('response_loss_pct', 100);
  expect(await lab.tap()).toBe('unknown');
  await lab.setFault('response_loss_pct', 0);
  expect(await lab.tap()).toBe('receipt');

  const expected: [string, string, string][] = [
    ['tapped', 'button', 'ok'],
    ['tap_ignored', 'button', 'caught'],
    ['key_made', 'app', 'ok'],
    ['response_lost', 'network', 'lost'],
    ['caller_timed_out', 'app', 'unknown'],
    ['key_claimed', 'api', 'ok'],
    ['outbox_written', 'outbox', 'ok'],
    ['record_appended', 'broker', 'ok'],
    ['credited', 'wallet', 'ok'],
    ['sms_sent', 'sms', 'ok'],
  ];
  for (const [kind, layer, outcome] of expected) {
    const mark = lab.kind(kind).first();
    await expect(mark).toHaveAttribute('data-layer', layer);
    await expect(mark).toHaveAttribute('data-outcome', outcome);
    expect(await inLane(lab, mark), `${kind} in the ${layer} lane`).toBe(true);
  }
  // The second debit of one intent escaped: damage, on the ledger lane.
  const escaped = page.locator('[data-testid="timeline-event"][data-kind="debited"][data-outcome="escaped"]');
  await expect(escaped).toHaveCount(1);
  expect(await inLane(lab, escaped)).toBe(true);
  // Counters per lane: the button caught one, the ledger let one escape.
  await expect(page.getByTestId('lane-count-button')).toHaveAttribute('data-caught', '1');
  await expect(page.getByTestId('lane-count-ledger')).toHaveAttribute('data-escaped', '1');
  // Details on focus: the accessible name says what happened.
  await expect(escaped).toHaveAttribute('aria-label', /৳৫০০/);
  lab.expectNoErrors();
});

test('selecting an event lights up its whole chain', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('sms_sent')).toHaveCount(1);
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('sms_sent')).toHaveCount(2);

  // The page keeps the rows in the order they happened (newest on top on the screen): the
  // first mark of a kind is the first transfer's.
  await lab.kind('debited').first().click();
  const row = (kind: string, n: 'first' | 'last') => lab.kind(kind)[n]().locator('xpath=..');
  for (const kind of ['tapped', 'key_made', 'request_sent', 'key_claimed', 'debited', 'outbox_written',
    'event_published', 'fraud_approved', 'credited', 'sms_sent']) {
    await expect(row(kind, 'first'), kind).toHaveClass(/in-chain/);
  }
  // The other transfer's chain stays dark, and so does the lab's own lane.
  await expect(row('debited', 'last')).toHaveClass(/dimmed/);
  await expect(row('sandbox_created', 'first')).not.toHaveClass(/in-chain/);
  await expect(page.getByTestId('event-details')).toContainText('TXN-88412');
  lab.expectNoErrors();
});

test('rewind shows the tables as they were, and the present goes on', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  expect(await lab.tap()).toBe('receipt');
  expect(await lab.tap()).toBe('receipt');
  const ledgerRows = page.locator('[data-table="payments.ledger"] tbody tr');
  await expect(ledgerRows).toHaveCount(2);

  await lab.kind('debited').first().click();
  await page.getByTestId('rewind-here').click();
  await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-view', 'past');
  await expect(ledgerRows).toHaveCount(1);
  await expect(page.locator('[data-table="payments.ledger"]')).toContainText('TXN-88412');
  await expect(page.locator('[data-table="payments.ledger"]')).not.toContainText('TXN-88413');
  // The phone still lives in the present.
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1000');

  await page.getByTestId('rewind-now').click();
  await expect(page.getByTestId('inspector-view')).toHaveAttribute('data-view', 'now');
  await expect(ledgerRows).toHaveCount(2);
  lab.expectNoErrors();
});

test('a run exported as a link replays into a new sandbox with the same timeline', async ({ page, context }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  await lab.setFault('response_loss_pct', 100);
  expect(await lab.tap()).toBe('unknown');
  await lab.setFault('response_loss_pct', 0);
  expect(await lab.tap()).toBe('receipt');
  await lab.pause.click();
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');

  await page.getByTestId('run-link-make').click();
  const link = await page.getByTestId('run-link').inputValue();
  expect(link).toMatch(/\/run#/);
  const original = await lab.events.evaluateAll((els) =>
    els.map((e) => [e.dataset.atMs, e.dataset.layer, e.dataset.kind, e.dataset.outcome].join(' ')).reverse());

  const other = await context.newPage();
  await other.goto(link);
  const result = other.getByTestId('run-result');
  await expect(result).toHaveAttribute('data-state', 'same', { timeout: 20_000 });
  expect(await other.getByTestId('hash-got').textContent()).toBe(await other.getByTestId('hash-expected').textContent());
  await other.getByTestId('open-replay').click();
  const replay = new LabPage(other);
  await replay.hydrated();
  await expect(replay.events).toHaveCount(original.length);
  const replayed = await replay.events.evaluateAll((els) =>
    els.map((e) => [e.dataset.atMs, e.dataset.layer, e.dataset.kind, e.dataset.outcome].join(' ')).reverse());
  expect(replayed).toEqual(original);
  expect(replay.sandboxId()).not.toBe(lab.sandboxId());

  // The same run claiming another hash: the page says the two differ and shows both, as the
  // API answers the same run.
  const [base, fragment] = link.split('#');
  const run = JSON.parse(decodeURIComponent(fragment));
  const claimed = '0'.repeat(64);
  const tampered = { ...run, log_hash: claimed };
  const third = await context.newPage();
  await third.goto(`${base}#${encodeURIComponent(JSON.stringify(tampered))}`);
  await expect(third.getByTestId('run-result')).toHaveAttribute('data-state', 'different', { timeout: 20_000 });
  await expect(third.getByTestId('hash-expected')).toHaveText(claimed);
  await expect(third.getByTestId('hash-got')).toHaveText(run.log_hash);
  const api = await page.request.post('/api/runs', { data: tampered });
  expect(api.status()).toBe(201);
  expect(await api.json()).toMatchObject({ log_hash: run.log_hash, expected_log_hash: claimed, log_hash_matches: false });
  lab.expectNoErrors();
});

test('the list of events is one Tab stop, and the arrows go from event to event, newest first', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('sms_sent')).toHaveCount(1);
  // Paused, so no new row comes in while the keys are pressed.
  await lab.pause.click();
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
  await page.waitForTimeout(300);
  // Every row's button (an event's mark or a fold of routine jobs) by one name, top of the
  // screen first; and the name of the button that has the focus.
  const name = "(e) => e ? e.getAttribute('data-event-id') ?? 'fold ' + e.getAttribute('data-first') : ''";
  const ids: string[] = await page.evaluate(`[...document.querySelectorAll('.lane-rows > li > button')]
    .sort((a, b) => parseFloat(a.parentElement.style.top) - parseFloat(b.parentElement.style.top))
    .map(${name})`);
  expect(ids.length).toBeGreaterThan(3);
  const focused = () => page.evaluate(`(${name})(document.activeElement)`);
  // The marks are not Tab stops of their own; the list is.
  await expect(lab.events.first()).toHaveAttribute('tabindex', '-1');
  await page.locator('.lane-scroll').focus();
  await page.keyboard.press('ArrowDown');
  expect(await focused()).toBe(ids[0]);
  await page.keyboard.press('ArrowDown');
  expect(await focused()).toBe(ids[1]);
  await page.keyboard.press('ArrowUp');
  expect(await focused()).toBe(ids[0]);
  await page.keyboard.press('End');
  expect(await focused()).toBe(ids[ids.length - 1]);
  await page.keyboard.press('Home');
  expect(await focused()).toBe(ids[0]);
  // Enter on a mark selects it and explains it.
  await page.keyboard.press('ArrowDown');
  const mark = ids[1].startsWith('fold') ? ids[2] : ids[1];
  if (mark !== ids[1]) await page.keyboard.press('ArrowDown');
  expect(await focused()).toBe(mark);
  await page.keyboard.press('Enter');
  await expect(page.locator(`[data-event-id="${mark}"]`)).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('event-details')).toBeVisible();
  lab.expectNoErrors();
});

test('keyboard shortcuts: space pauses and runs, → steps, ? shows the help', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press(' ');
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
  const stepped = await lab.kind('clock_stepped').count();
  await page.keyboard.press('ArrowRight');
  await expect(lab.kind('clock_stepped')).toHaveCount(stepped + 1);
  await page.keyboard.press('?');
  const help = page.getByTestId('shortcut-help');
  await expect(help).toBeVisible();
  await expect(help.getByRole('button')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await page.keyboard.press(' ');
  await expect(lab.clock).toHaveAttribute('data-mode', 'live');
  lab.expectNoErrors();
});

test('space after a click on Send or a switch pauses the clock and presses nothing', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  await lab.tap();
  const taps = await lab.phoneMessage.getAttribute('data-taps');
  // The mouse left the focus on Send: Space is the clock's, not a second ৳500.
  await page.keyboard.press(' ');
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
  await expect(lab.send).not.toBeFocused();
  await page.keyboard.press(' ');
  await expect(lab.clock).toHaveAttribute('data-mode', 'live');
  await expect(lab.phoneMessage).toHaveAttribute('data-taps', taps!);
  // The same after a click on a switch: it keeps the value the click gave it.
  await lab.setSafeguard('button_guard', false);
  const changes = await lab.kind('safeguards_changed').count();
  await page.keyboard.press(' ');
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
  await expect(lab.safeguard('button_guard')).not.toBeChecked();
  await expect(lab.kind('safeguards_changed')).toHaveCount(changes);
  // A control the keyboard moved to still takes Space, as everywhere.
  await lab.safeguard('button_guard').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press(' ');
  await expect(lab.safeguard('button_guard')).toBeChecked();
  await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
  lab.expectNoErrors();
});

test('at 1366 px beside a chapter, all fourteen lanes and their names fit without a sideways scroll', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  const lab = new LabPage(page);
  for (const chapter of [6, 9]) {
    await lab.open(chapter);
    await expect(page.getByTestId('chapter')).toBeVisible();
    const lanes = page.locator('.lanes');
    await expect(lanes).toBeVisible();
    const fit = await lanes.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(fit.scroll, `chapter ${chapter}: the lanes scroll sideways`).toBeLessThanOrEqual(fit.client + 1);
    const names = page.locator('.lane-head .lane-name');
    await expect(names).toHaveCount(14);
    for (const name of await names.all()) {
      // The short name is whole (not cut to "wal…"), and the full one is there on hover.
      const cut = await name.locator('.lane-label').evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
      expect(cut, `chapter ${chapter}: ${await name.getAttribute('data-lane')} is cut`).toBe(false);
      await expect(name).toHaveAttribute('title', /\S/);
    }
  }
  lab.expectNoErrors();
  await context.close();
});
