import { test, expect, LabPage } from './lab-page';
import type { Page } from '@playwright/test';

// The course as a whole, the way a student goes through it over days: a way back in from the
// front page (and the bare lab) to the chapter and step they left, in the sandbox it ran in; a
// start over that asks; a reset of their own run that asks first; chapters that open at their
// top on a laptop and on a phone; a "show me" that leaves its control clear of the sticky bar
// and the drawer. Any page error or panic fails a test (lab-page.ts).

function step(page: Page, k: number) {
  return page.locator(`[data-testid="chapter-step"][data-step="${k}"]`);
}

test('the front page leads back to the chapter and step left, in its sandbox, and asks before starting over', async ({ page }) => {
  const lab = new LabPage(page);
  // A first visit: only the start.
  await page.goto('/');
  await expect(page.getByTestId('course-continue')).toHaveCount(0);
  await expect(page.getByTestId('start-course')).toHaveAttribute('href', '/lab?chapter=1');

  const id = await lab.open(8);
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');

  // The next day, the same browser: the front page offers the way back.
  await page.goto('/');
  const back = page.getByTestId('course-continue');
  await expect(back).toHaveAttribute('data-chapter', '8');
  await expect(back).toHaveAttribute('data-step', '2');
  await expect(back).toHaveAttribute('href', `/lab/${id}?chapter=8`);
  await back.click();
  await page.waitForURL(`**/lab/${id}?chapter=8`);
  await lab.hydrated();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '8');
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  await expect(step(page, 2)).toHaveAttribute('data-done', 'false');
  await page.reload();
  await lab.hydrated();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');

  // The bare lab offers it too.
  await page.goto(`/lab/${id}`);
  await lab.hydrated();
  await expect(page.getByTestId('course-continue')).toHaveAttribute('href', `/lab/${id}?chapter=8`);

  // Starting over asks; keeping the place changes nothing.
  await page.goto('/');
  await page.getByTestId('start-course').click();
  await expect(page.getByTestId('start-over-confirm')).toBeVisible();
  await page.getByTestId('start-over-cancel').click();
  await expect(page.getByTestId('course-continue')).toHaveAttribute('data-chapter', '8');
  await page.getByTestId('start-course').click();
  await page.getByTestId('start-over-confirm').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
  await lab.hydrated();
  expect(lab.sandboxId()).not.toBe(id);
  await expect(step(page, 1)).toHaveAttribute('data-done', 'false');
  // The place is now the new chapter 01; the old sandbox is still there as it was.
  await page.goto('/');
  await expect(page.getByTestId('course-continue')).toHaveAttribute('data-chapter', '1');
  const old = await page.request.get(`/api/sandboxes/${id}/state`);
  expect(old.status()).toBe(200);
});

test("a chapter's start asks before it wipes the student's own run, and can open a fresh sandbox instead", async ({ page }) => {
  const lab = new LabPage(page);
  const id = await lab.open(1);
  // Nothing of the student's yet: the start loads at once.
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  await expect(page.getByTestId('wipe-ask')).toHaveCount(0);
  await lab.tap();
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true');

  // Now there is: the start asks, saying what would go.
  await page.getByTestId('preset-load').click();
  const ask = page.getByTestId('wipe-ask');
  await expect(ask).toBeVisible();
  // Over the whole lab, not clipped by the chapter's column.
  await expect(ask).toBeInViewport({ ratio: 1 });
  await expect(ask).toHaveAttribute('data-transfers', '1');
  await page.getByTestId('wipe-cancel').click();
  await expect(ask).toHaveCount(0);
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true');
  await expect(lab.kind('request_sent')).toHaveCount(1);
  // After a reload it still asks: the run is the server's, not the page's.
  await page.reload();
  await lab.hydrated();
  await page.getByTestId('preset-load').click();
  await expect(page.getByTestId('wipe-fresh')).toHaveAttribute('href', '/lab?fresh=1&scenario=1&variant=unguarded&chapter=1');
  await page.getByTestId('wipe-confirm').click();
  await expect(ask).toHaveCount(0);
  await expect(lab.kind('sandbox_reset')).toHaveCount(1);
  await page.waitForTimeout(1000);
  console.log(await page.locator('[data-testid="timeline-event"]').evaluateAll((es) => es.map((e) => e.getAttribute('data-kind')).join(' ')));
  await expect(step(page, 2)).toHaveAttribute('data-done', 'false');
  await expect(lab.kind('request_sent')).toHaveCount(0);
  expect(lab.sandboxId()).toBe(id);

  // The fresh way: the student's run stays where it was.
  await lab.tap();
  await page.getByTestId('preset-load').click();
  await page.getByTestId('wipe-fresh').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
  await lab.hydrated();
  expect(lab.sandboxId()).not.toBe(id);
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  await expect(lab.kind('request_sent')).toHaveCount(0);
  // The run left behind is still whole, its transfer in its log.
  const run = await (await page.request.get(`/api/sandboxes/${id}/run`)).text();
  expect(run).toContain('"transfer"');
  lab.expectNoErrors();
});

test('a chapter opens at its top on a laptop, and a "show me" leaves its control clear', async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 768 });
  const lab = new LabPage(page);
  await lab.open(1);
  await page.evaluate(() => {
    window.scrollTo(0, document.body.scrollHeight);
    const col = document.querySelector('.lab-chapter');
    if (col) col.scrollTop = col.scrollHeight;
  });
  await page.getByTestId('chapter-next').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  await expect.poll(() => page.evaluate(() => document.querySelector('.lab-chapter')!.scrollTop)).toBe(0);
  await expect(page.locator('#chapter-title')).toBeInViewport({ ratio: 1 });
  await expect(page.locator('.chapter-opening').first()).toBeInViewport();
  lab.expectNoErrors();
});

test('on a phone a chapter chip opens the next chapter at its story, and "show me" clears the drawer and the bar', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const lab = new LabPage(page);
  await lab.open(1);
  await page.evaluate(() => {
    const col = document.querySelector('.lab-chapter');
    if (col) col.scrollTop = col.scrollHeight;
  });
  await page.locator('.chapter-list a[href="?chapter=9"]').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '9');
  await expect.poll(() => page.evaluate(() => document.querySelector('.lab-chapter')!.scrollTop)).toBe(0);
  await expect(page.locator('#chapter-title')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('preset-load')).toBeInViewport();

  // Step 1 points at the start; once loaded, step 2's "show me" brings its control clear.
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  const show = page.getByTestId('chapter-show');
  await expect(show).toBeVisible();
  await show.click();
  const target = page.locator('.pointed').first();
  await expect(target).toBeVisible();
  await expect
    .poll(async () => {
      const t = (await target.boundingBox())!;
      const bar = (await page.getByTestId('summary-bar').boundingBox())!;
      const drawer = (await page.locator('.lab-chapter').boundingBox())!;
      return t.y >= bar.y + bar.height - 1 && t.y + t.height <= drawer.y + 1;
    })
    .toBe(true);
  lab.expectNoErrors();
  await context.close();
});

test('on a laptop chapter 07\'s "show me" brings each step\'s control fully into view below the bar', async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 768 });
  const lab = new LabPage(page);
  await lab.open(7);
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  // Scrolled away to the page's foot first, as a student reading the chapter might be.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const clear = async (what: string) => {
    const show = page.getByTestId('chapter-show');
    await show.click();
    const target = page.locator('.pointed').first();
    await expect(target).toBeVisible();
    await expect
      .poll(async () => {
        const t = (await target.boundingBox())!;
        // The summary bar sticks at the top where it is drawn (not on every width).
        const bar = await page.getByTestId('summary-bar').boundingBox();
        const top = bar ? bar.y + bar.height : 0;
        const below = t.y >= top - 1;
        // A control taller than the screen shows its top; any other shows all of it.
        const whole = t.y + t.height <= 768 + 1 || t.height > 768 - top;
        return below && whole;
      }, { message: `${what}: the control is under the bar or off the screen` })
      .toBe(true);
  };
  await clear('step 2 (Send)');
  await lab.send.click();
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await clear('step 3 (the timeline)');
  lab.expectNoErrors();
});

test('finishing chapter 09 on a phone in Bangla, then chapter 01 in English, raises no error', async ({ browser }) => {
  // The path a student once saw a disposed-signal panic on: finish a chapter in one language
  // at a phone's width, switch language, open another chapter, load its start, tap Send, open
  // a meter tile, move a slider, tap Send. Any page error or panic fails it.
  test.setTimeout(180_000);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const lab = new LabPage(page);
  await lab.open(9);
  if ((await page.locator('html').getAttribute('lang')) !== 'bn') await lab.langSwitch.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
  // Chapter 09 to its end, as its steps say.
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  // The drawer folded down to its head, as a student does to reach the clock's buttons.
  await page.getByTestId('chapter-collapse').click();
  await expect(page.getByTestId('chapter')).toHaveClass(/collapsed/);
  // On a phone the clock's buttons sit in a folded section: opened as a student opens it.
  const clockFold = page.locator('details:has([data-testid="jump-minute"])').first();
  if ((await clockFold.count()) && !(await clockFold.evaluate((d) => (d as HTMLDetailsElement).open))) {
    await clockFold.locator('summary').first().click();
  }
  await expect(page.getByTestId('jump-minute')).toBeVisible();
  let outcome = await lab.tap();
  for (let i = 0; outcome !== 'receipt' && i < 12; i++) {
    if (outcome === 'in-progress') {
      // The wait is explained, from the sandbox's own recovery setting and clock.
      await expect(page.getByTestId('key-wait')).toHaveAttribute('data-recovery', 'true');
      await lab.jump('minute');
    }
    outcome = await lab.tap();
  }
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  await lab.setFault('request_loss_pct', 0);
  await expect(step(page, 3)).toHaveAttribute('data-done', 'true');
  await lab.setFault('response_loss_pct', 0);
  await expect(step(page, 4)).toHaveAttribute('data-done', 'true');
  await lab.jump('hour');
  await expect(step(page, 5)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  // Step 6's button is in the drawer: opened, pressed, folded again.
  await page.getByTestId('chapter-collapse').click();
  await page.getByTestId('preset-load-unguarded').click();
  await page.getByTestId('chapter-collapse').click();
  for (let i = 0; i < 12 && (await lab.damage.getAttribute('data-verdict')) !== 'money_wrong'; i++) {
    await lab.tap();
    if (i % 3 === 2) await lab.jump('hour');
  }
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-finished', 'true', { timeout: 20_000 });
  // The course's end, with the ways on (the drawer opens by itself when the chapter ends).
  await expect(page.getByTestId('chapter')).not.toHaveClass(/collapsed/);
  await expect(page.getByTestId('course-finished')).toBeVisible();
  await expect(page.getByTestId('course-path')).toBeVisible();
  await expect(page.getByTestId('course-finished-quiz')).toHaveAttribute('href', '/quiz');
  // Then English, chapter 01 by its chip, its start (the run left asked about).
  await lab.langSwitch.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.locator('.chapter-list a[href="?chapter=1"]').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '1');
  await page.getByTestId('preset-load').click();
  await page.getByTestId('wipe-confirm').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  await lab.send.click();
  await lab.figure('debits').click();
  await lab.setFault('response_loss_pct', 0);
  await lab.send.click();
  await page.waitForTimeout(500);
  lab.expectNoErrors();
  // Coming back: the front page offers chapter 01 where it stands, and a reload is whole.
  await page.reload();
  await lab.hydrated();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  lab.expectNoErrors();
  await context.close();
});

test('while a key keeps answering "still being processed", the phone says why and until when', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const api = `/api/sandboxes/${lab.sandboxId()}`;
  // The instance that claims the key dies before it pays: the key stays IN_PROGRESS.
  const res = await page.request.put(`${api}/faults`, { data: { crash: { api_after_claim: 'once' }, auto_retries: 0 } });
  expect(res.ok()).toBeTruthy();
  await lab.send.click();
  await expect(lab.phoneMessage).not.toHaveAttribute('data-state', /^(ready|sending|backoff)$/);
  // The next tap, with the same key, meets the claim.
  for (let i = 0; i < 3 && (await lab.phoneMessage.getAttribute('data-state')) !== 'in-progress'; i++) {
    await lab.tap();
  }
  await expect(lab.phoneMessage).toHaveAttribute('data-state', 'in-progress');
  const wait = page.getByTestId('key-wait');
  await expect(wait).toHaveAttribute('data-recovery', 'true');
  // With recovery off, nothing will free it: the phone says so.
  const off = await page.request.put(`${api}/safeguards`, { data: { stuck_recovery: false } });
  expect(off.ok()).toBeTruthy();
  await expect(wait).toHaveAttribute('data-recovery', 'false');
  lab.expectNoErrors();
});
