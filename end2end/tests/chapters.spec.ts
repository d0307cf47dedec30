import { test, expect, LabPage } from './lab-page';
import type { Page } from '@playwright/test';

// Every chapter of the course, done as the chapter tells the student, in order, through the
// screen: each step must tick itself off, and the chapter's promise (balances, damage, the lane
// that caught the copy) must hold. Chapters that load their scenario twice do it with the guard
// off and then on.

class Chapter {
  constructor(readonly page: Page, readonly lab: LabPage) {}

  step(k: number) {
    return this.page.locator(`[data-testid="chapter-step"][data-step="${k}"]`);
  }

  async done(k: number) {
    await expect(this.step(k)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  }

  /** The chapter's load button, or the button that loads its scenario in another variant. */
  async load(variant?: 'guarded' | 'unguarded') {
    await this.page.getByTestId(variant ? `preset-load-${variant}` : 'preset-load').click();
  }

  async finished() {
    await expect(this.page.getByTestId('chapter')).toHaveAttribute('data-finished', 'true');
    await expect(this.page.getByTestId('chapter-why')).toBeVisible();
  }
}

async function open(page: Page, n: number): Promise<Chapter> {
  const lab = new LabPage(page);
  await lab.open(n);
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', String(n));
  return new Chapter(page, lab);
}

/** The response-loss slider, as the chapters name it. */
async function responseLoss(lab: LabPage, pct: number) {
  await lab.setFault('response_loss_pct', pct);
}

test('the front page starts chapter 01, which folds away the panels it does not use', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('start-course')).toHaveAttribute('href', '/lab?chapter=1');
  const ch = await open(page, 1);
  await expect(page.locator('.slot[data-panel="instructor"]')).toBeHidden();
  await expect(page.locator('.slot[data-panel="phone"]')).toBeVisible();
  // The current step points at the control it needs.
  await expect(page.getByTestId('preset-load')).toHaveClass(/pointed/);
  await page.getByTestId('show-all-panels').click();
  await expect(page.locator('.slot[data-panel="instructor"]')).toBeVisible();
  await ch.load();
  await ch.done(1);
  await ch.lab.send.click();
  await ch.done(2);
  // Next keeps the sandbox; chapter 02's first step counts no press made in chapter 01.
  const id = ch.lab.sandboxId();
  await page.getByTestId('chapter-next').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  expect(ch.lab.sandboxId()).toBe(id);
  await page.waitForTimeout(300);
  await expect(page.getByTestId('chapter-presses')).toHaveCount(0);
  ch.lab.expectNoErrors();
});

test('chapter 01: without the key, the second tap charges Shimul twice', async ({ page }) => {
  const ch = await open(page, 1);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await expect(lab.safeguard('key_persistence')).not.toBeChecked();
  await lab.send.click();
  await ch.done(2);
  // "Look at the meter" is done by looking, not by itself.
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await page.waitForTimeout(300);
  await expect(ch.step(3)).toHaveAttribute('data-done', 'false');
  await lab.damage.click();
  await ch.done(3);
  // The phone shows only what it was told.
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');
  await responseLoss(lab, 0);
  await ch.done(4);
  await lab.send.click();
  await ch.done(5);
  await ch.finished();
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1000');
  await expect(lab.kind('debited').and(page.locator('[data-outcome="escaped"]'))).toHaveCount(1);
  lab.expectNoErrors();
});

test('chapter 02: with the key kept, the retry gets the first receipt and one debit; the retry storm too', async ({ page }) => {
  const ch = await open(page, 2);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  const key = await lab.key.textContent();
  await responseLoss(lab, 0);
  await ch.done(3);
  await lab.send.click();
  await ch.done(4);
  await expect(lab.key).toHaveText(key!);
  await expect(lab.phoneMessage).toContainText('TXN-88412');
  await expect(lab.phoneMessage).toContainText('Idempotent-Replayed');
  await ch.done(5);
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.kind('response_replayed').and(page.locator('[data-outcome="caught"]'))).toHaveCount(1);

  // Scenario 2 without the table: one tap, and the library's and the balancer's retries each
  // debit. Once loaded, the step points past its button at Send.
  await expect(page.getByTestId('preset-load-2-unguarded')).toHaveClass(/pointed/);
  await page.getByTestId('preset-load-2-unguarded').click();
  await expect(lab.send).toHaveClass(/pointed/);
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  await lab.send.click();
  await ch.done(6);
  // With the table: the same retries, one debit.
  await page.getByTestId('preset-load-2-guarded').click();
  await expect(lab.send).toHaveClass(/pointed/);
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  await lab.send.click();
  await ch.done(7);
  await ch.finished();
  await expect(lab.kind('lb_retried').first()).toBeVisible();
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '0');
  lab.expectNoErrors();
});

test('chapter 01 reloaded before the second tap: the reload sends nothing, the tap charges twice', async ({ page }) => {
  const ch = await open(page, 1);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  await lab.damage.click();
  await ch.done(3);
  await responseLoss(lab, 0);
  await ch.done(4);
  // The app kept no key (key_persistence is off); the lab keeps the decision to pay, so the
  // tap after the reload is the same decision retried, and the meter counts it as such.
  await page.reload();
  await lab.hydrated();
  await ch.done(4);
  await expect(ch.step(5)).toHaveAttribute('data-done', 'false');
  await lab.send.click();
  await ch.done(5);
  await ch.finished();
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'money_wrong');
  lab.expectNoErrors();
});

test('chapter 02 reloaded before the retry: nothing goes out until the tap, which sends the kept key', async ({ page }) => {
  const ch = await open(page, 2);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  const key = await lab.key.textContent();
  await responseLoss(lab, 0);
  await ch.done(3);
  await page.reload();
  await lab.hydrated();
  // The app shows its unfinished transfer and waits for the student: no request, no tick.
  await lab.phoneSays('unfinished');
  await expect(lab.key).toHaveText(key!);
  await page.waitForTimeout(1_500);
  await expect(lab.kind('request_sent')).toHaveCount(1);
  await expect(ch.step(4)).toHaveAttribute('data-done', 'false');
  await lab.send.click();
  await ch.done(4);
  await expect(lab.key).toHaveText(key!);
  await expect(lab.phoneMessage).toContainText('TXN-88412');
  await ch.done(5);
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('intents')).toHaveAttribute('data-value', '1');
  lab.expectNoErrors();
});

test('chapter 03: the race, a reused key and a crash after the claim, each without its guard and with it', async ({ page }) => {
  const ch = await open(page, 3);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await page.getByTestId('attack-race').click();
  await ch.done(2);
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
  await ch.load('guarded');
  await ch.done(3);
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '0');
  await page.getByTestId('attack-race').click();
  await ch.done(4);
  const result = page.getByTestId('attack-result');
  await expect(result.locator('li').nth(1)).toHaveAttribute('data-status', '409');
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '0');

  // Scenario 4: the same key with ৳5,000 gets the ৳500 receipt; with the fingerprint, 422.
  await page.getByTestId('preset-load-4-unguarded').click();
  await expect(page.getByTestId('attack-reused-key')).toHaveClass(/pointed/);
  await page.getByTestId('attack-reused-key').click();
  await ch.done(5);
  await expect(lab.kind('response_replayed')).toHaveAttribute('data-outcome', 'escaped');
  await page.getByTestId('preset-load-4-guarded').click();
  await page.getByTestId('attack-reused-key').click();
  await ch.done(6);
  await expect(result.locator('li').nth(1)).toHaveAttribute('data-status', '422');

  // Scenario 5: the instance dies after its claim. Without recovery the key answers 409 a
  // minute on; with it, the key is released and the next tap gets the receipt.
  await page.getByTestId('preset-load-5-unguarded').click();
  await expect(lab.send).toHaveClass(/pointed/);
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  expect(await lab.tap()).toBe('unknown');
  expect(await lab.tap()).toBe('in-progress');
  await lab.jump('minute');
  expect(await lab.tap()).toBe('in-progress');
  await ch.done(7);
  await page.getByTestId('preset-load-5-guarded').click();
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  expect(await lab.tap()).toBe('unknown');
  await lab.jump('minute');
  await expect(lab.kind('stuck_key_released')).toHaveCount(1);
  expect(await lab.tap()).toBe('receipt');
  await ch.done(8);
  await ch.finished();
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  lab.expectNoErrors();
});

test('chapter 04: a retry after the 48 h window runs as new; the ledger stops it, and without it charges twice', async ({ page }) => {
  const ch = await open(page, 4);
  const { lab } = ch;
  // Where the lab's claim differs from the lesson's sketch is said, and why.
  await expect(page.getByTestId('chapter-differs')).toContainText('IN_PROGRESS');
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  await responseLoss(lab, 0);
  await ch.done(3);
  // A step of several presses shows each one it has counted.
  // (The slider of step 3 can still show beside them when its event trails the state that
  // ticked step 3: the jumps are counted on their own.)
  const presses = ch.step(4).locator('[data-testid="chapter-press"][data-kind="jump"]');
  await lab.jump('day');
  await expect(presses).toHaveCount(1);
  await lab.jump('day');
  await expect(presses).toHaveCount(2);
  await lab.jump('hour');
  await ch.done(4);
  await lab.send.click();
  await ch.done(5);
  await expect(lab.kind('ledger_duplicate')).toHaveAttribute('data-outcome', 'caught');
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  // Guard off: the same steps again.
  await ch.load('unguarded');
  await expect(lab.safeguard('ledger_unique')).not.toBeChecked();
  await lab.send.click();
  await lab.phoneSays('unknown');
  await responseLoss(lab, 0);
  await lab.jump('day');
  await lab.jump('day');
  await lab.jump('hour');
  await lab.send.click();
  await ch.done(6);
  await ch.finished();
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1000');
  await expect(lab.kind('ledger_duplicate')).toHaveCount(0);
  lab.expectNoErrors();
});

test('chapter 07: the broker drops the resend, the audit row outside the log repeats, and without the producer guard the log keeps the copy', async ({ page }) => {
  const ch = await open(page, 7);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  await lab.phoneSays('receipt');
  // The same Send crashed the fraud check: the step waits for the student to look at it.
  await expect(lab.kind('fraud_crashed')).toHaveCount(1);
  await expect(ch.step(3)).toHaveAttribute('data-done', 'false');
  await lab.kind('fraud_crashed').click();
  await ch.done(3);
  await expect(ch.step(4)).toHaveAttribute('data-done', 'false');
  await page.locator('[data-table="fraud.audit"] > summary').click();
  await ch.done(4);
  expect(await page.locator('[data-table="fraud.audit"] tbody tr').count()).toBeGreaterThanOrEqual(2);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.figure('double_credits')).toHaveAttribute('data-value', '0');
  // Guard off: the resend is appended, and the wallet's inbox is what keeps Tithi's credit single.
  await ch.load('unguarded');
  await expect(lab.safeguard('idempotent_producer')).not.toBeChecked();
  await lab.send.click();
  await ch.done(5);
  await ch.finished();
  await expect(lab.kind('resend_appended')).toHaveAttribute('data-outcome', 'escaped');
  await expect(lab.kind('resend_dropped')).toHaveCount(0);
  await lab.phoneSays('receipt');
  await expect(lab.kind('inbox_duplicate').first()).toHaveAttribute('data-outcome', 'caught');
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  lab.expectNoErrors();
});

test('chapter 08: without inboxes Tithi is paid twice; with them, once', async ({ page }) => {
  const ch = await open(page, 8);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  await lab.send.click();
  await ch.done(2);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
  await ch.load('guarded');
  await ch.done(3);
  await lab.send.click();
  await ch.done(4);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.smsList.locator('li')).toHaveCount(1);
  // Paid once, texted once; the fraud check, with no inbox, approved the resent copy again.
  await expect(lab.figure('double_credits')).toHaveAttribute('data-value', '0');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'effect_twice');
  // The replay trap (scenario 11): Send, two days on, the wallet replayed from 5 days back.
  // A 24-hour inbox has forgotten the event (step 5); a 7-day one catches the copy (step 6).
  for (const [k, button, credited] of [
    [5, 'preset-load-11-unguarded', '1000'],
    [6, 'preset-load-11-guarded', '500'],
  ] as const) {
    await page.getByTestId(button).click();
    await expect(lab.kind('scenario_loaded')).toHaveCount(1);
    await expect(lab.tithiBalance).toHaveAttribute('data-value', '0');
    await lab.send.click();
    await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
    await lab.jump('day');
    await lab.jump('day');
    await page.getByTestId('replay-consumer').selectOption('wallet');
    await page.getByTestId('replay-days').fill('5');
    await page.getByTestId('replay-start').click();
    await expect(lab.kind('replay_started')).toHaveCount(1);
    await lab.jump('minute');
    await ch.done(k);
    await expect(lab.tithiBalance).toHaveAttribute('data-value', credited);
  }
  await ch.finished();
  lab.expectNoErrors();
});

test('chapter 09: every guard against every fault, the money once; no guard, and the meter shows money wrong', async ({ page }) => {
  test.setTimeout(120_000);
  const ch = await open(page, 9);
  const { lab } = ch;
  await ch.load();
  await ch.done(1);
  // Shimul keeps tapping, the app keeps its key, until a receipt comes.
  let outcome = await lab.tap();
  for (let i = 0; outcome !== 'receipt' && i < 12; i++) {
    if (outcome === 'in-progress') await lab.jump('minute');
    outcome = await lab.tap();
  }
  expect(outcome).toBe('receipt');
  await ch.done(2);
  await lab.setFault('request_loss_pct', 0);
  await ch.done(3);
  await responseLoss(lab, 0);
  await ch.done(4);
  await lab.jump('hour');
  await ch.done(5);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  // The money is right; the fraud check's crash before its commit approved a batch twice.
  for (const figure of ['double_charges', 'double_credits', 'lost_events', 'money_created']) {
    await expect(lab.figure(figure)).toHaveAttribute('data-value', '0');
  }
  await expect(lab.damage).toHaveAttribute('data-verdict', 'effect_twice');
  // Guard off: the same storm, tapped as in step 2, until the meter shows money wrong.
  await ch.load('unguarded');
  await expect(lab.safeguard('ledger_unique')).not.toBeChecked();
  await expect(lab.damage).not.toHaveAttribute('data-verdict', 'effect_twice');
  for (let i = 0; i < 12 && (await lab.damage.getAttribute('data-verdict')) !== 'money_wrong'; i++) {
    await lab.tap();
    if (i % 3 === 2) await lab.jump('hour');
  }
  await ch.done(6);
  await ch.finished();
  await expect(lab.damage).toHaveAttribute('data-harmed', 'true');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'money_wrong');
  lab.expectNoErrors();
});

test("at a phone's width the chapter is a drawer that folds down to let the student act", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const ch = await open(page, 1);
  const { lab } = ch;
  const drawer = page.getByTestId('chapter');
  // The drawer is over the lab, at the bottom of the screen.
  const box = (await drawer.boundingBox())!;
  expect(box.y + box.height).toBeGreaterThan(800);
  expect(box.y).toBeGreaterThan(400);
  // Step 1's control is the drawer's own start button: "show me" keeps the drawer open on it.
  await page.getByTestId('chapter-show').click();
  await expect(drawer).not.toHaveClass(/collapsed/);
  await expect(page.getByTestId('preset-load')).toBeInViewport();
  await ch.load();
  await ch.done(1);
  // "Show me" folds the drawer to its head, which keeps the step in words, and rings Send.
  await page.getByTestId('chapter-show').click();
  await expect(drawer).toHaveClass(/collapsed/);
  await expect(page.getByTestId('chapter-now')).toContainText('Send');
  await expect(lab.send).toHaveClass(/pointed/);
  await lab.send.click();
  await ch.done(2);
  await page.getByTestId('chapter-collapse').click();
  await expect(ch.step(3)).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  lab.expectNoErrors();
  await context.close();
});

test('chapter 05: a SET gives one name, an INCREMENT adds per copy, a keyed INSERT keeps one row', async ({ page }) => {
  const ch = await open(page, 5);
  const { lab } = ch;
  await expect(page.getByTestId('natural')).toBeVisible();
  await ch.load();
  await ch.done(1);
  await page.getByTestId('natural-set_name').click();
  await ch.done(2);
  await expect(page.getByTestId('natural-after-set_name')).toHaveAttribute('data-name', 'Shimul Ahmed');
  await page.getByTestId('natural-add').click();
  await ch.done(3);
  const arrived = Number(await page.getByTestId('natural-arrived-add').getAttribute('data-arrived'));
  expect(arrived).toBeGreaterThan(1);
  await expect(page.getByTestId('natural-after-add')).toHaveAttribute('data-savings', String(500 * arrived));
  await page.getByTestId('natural-insert').click();
  await ch.done(4);
  await ch.finished();
  await expect(page.getByTestId('natural-after-insert')).toHaveAttribute('data-rows', '1');
  await expect(lab.kind('natural_applied').and(page.locator('[data-outcome="escaped"]'))).toHaveCount(arrived - 1);
  // The HTTP methods: POST and PATCH are the two that are not idempotent.
  const no = page.locator('[data-testid="http-methods"] tr[data-idempotent="false"]');
  expect(await no.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-method')))).toEqual(['POST', 'PATCH']);
  lab.expectNoErrors();
});

test('chapter 06: the generals never both know; at-most-once loses, at-least-once doubles, effectively-once holds', async ({ page }) => {
  test.setTimeout(90_000);
  const ch = await open(page, 6);
  const { lab } = ch;
  await expect(page.getByTestId('generals')).toBeVisible();
  // No verdict before any messenger is sent.
  await expect(page.getByTestId('generals-verdict')).toHaveCount(0);
  await ch.load();
  await ch.done(1);
  await page.getByTestId('generals-send').click();
  // The messengers run on the sandbox's clock: while one is still crossing, the step waits;
  // it ticks with the verdict, when the last one has arrived or been caught.
  await expect(page.getByTestId('generals-messenger')).toBeVisible();
  const crossing = await page.evaluate(() => ({
    messenger: !!document.querySelector('[data-testid="generals-messenger"]'),
    verdict: !!document.querySelector('[data-testid="generals-verdict"]'),
    done: document.querySelector('[data-testid="chapter-step"][data-step="2"]')?.getAttribute('data-done'),
  }));
  expect(crossing.messenger && !crossing.verdict, 'a messenger still on its way').toBe(true);
  expect(crossing.done, 'ticked while a messenger crosses').toBe('false');
  await expect(page.getByTestId('generals-verdict')).toBeVisible({ timeout: 20_000 });
  await ch.done(2);
  await expect(page.getByTestId('generals-verdict')).toContainText('exactly once');
  await lab.send.click();
  await ch.done(3);
  await expect(lab.figure('lost_events')).toHaveAttribute('data-value', '1');
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '0');
  await page.getByTestId('preset-load-unguarded').click();
  await expect(lab.figure('lost_events')).toHaveAttribute('data-value', '0');
  // The load put the clock back: the messengers of before it are gone, not replayed.
  await expect(page.getByTestId('generals-trips').locator('li')).toHaveCount(0);
  await expect(page.getByTestId('generals-verdict')).toHaveCount(0);
  await lab.send.click();
  await ch.done(4);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
  await page.getByTestId('preset-load-guarded').click();
  await expect(lab.figure('double_credits')).toHaveAttribute('data-value', '0');
  await lab.send.click();
  await ch.done(5);
  await ch.finished();
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(page.getByTestId('chapter-why')).toContainText('effectively-once');
  lab.expectNoErrors();
});

test("at a phone's width Send and the phone's answer are never under the open drawer", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const ch = await open(page, 9);
  const { lab } = ch;
  const drawer = page.getByTestId('chapter');
  const clear = async (what: string) => {
    const d = (await drawer.boundingBox())!;
    for (const [name, el] of [['Send', lab.send], ['the answer', lab.phoneMessage]] as const) {
      const b = (await el.boundingBox())!;
      expect(b.y, `${what}: ${name} is above the screen`).toBeGreaterThanOrEqual(0);
      expect(b.y + b.height, `${what}: ${name} is under the drawer`).toBeLessThanOrEqual(d.y + 1);
    }
  };
  await expect(drawer).not.toHaveClass(/collapsed/);
  await clear('opened');
  // The other language's words move things: still clear.
  await lab.langSwitch.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await clear('in English');
  await ch.load();
  await ch.done(1);
  await clear('loaded');
  // ×10 through the API: on a phone the clock's controls are folded away.
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  await lab.send.tap();
  await expect(lab.phoneMessage).not.toHaveAttribute('data-state', /^(ready|sending|backoff|unfinished)$/, { timeout: 20_000 });
  await clear('answered');
  lab.expectNoErrors();
  await context.close();
});
