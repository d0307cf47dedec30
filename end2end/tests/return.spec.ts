import { test, expect, LabPage } from './lab-page';
import type { Page } from '@playwright/test';

// Coming back to a chapter under way: a reload, back and forward, a link in from the glossary,
// the summary or a quiz answer, the front page in the other language. Each time the page must
// hydrate without a panic, the ticked steps must come back, and the lab must keep answering.
// The saved ticks live in this browser only; the server draws a chapter with none ticked, and
// the page takes the saved ones in after hydration (`src/app/lab/chapter.rs`).

function step(page: Page, k: number) {
  return page.locator(`[data-testid="chapter-step"][data-step="${k}"]`);
}

/** Opens chapter 01, loads its scenario and taps Send: steps 1 and 2 are ticked. */
async function started(page: Page): Promise<LabPage> {
  const lab = new LabPage(page);
  await lab.open(1);
  await page.getByTestId('preset-load').click();
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  // ×10, so the phone's 5 s timeout passes in half a second (the clock is folded away here).
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  await lab.send.click();
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  return lab;
}

/** The chapter is back with its first two steps ticked, its story folded, and the lab answers:
 * the stream is connected and a tap reaches the server. */
async function backWithTicks(page: Page, lab: LabPage, n = 1) {
  await lab.hydrated();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', String(n));
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true');
  await expect(page.locator('.lab-chapter details.chapter-story')).toHaveCount(1);
  await expect(page.getByTestId('events-count')).not.toHaveText(/^[0০]\D/);
  const taps = Number(await lab.phoneMessage.getAttribute('data-taps'));
  await lab.send.click();
  await expect(lab.phoneMessage).toHaveAttribute('data-taps', String(taps + 1));
}

test('a reload of a started chapter brings its ticks back and the lab keeps answering', async ({ page }) => {
  const lab = await started(page);
  await page.reload();
  await backWithTicks(page, lab);
  lab.expectNoErrors();
});

test('back and forward between chapters keep each one where it was', async ({ page }) => {
  const lab = await started(page);
  await page.getByTestId('chapter-next').click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  await expect(step(page, 1)).toHaveAttribute('data-done', 'false');
  await page.goBack();
  await backWithTicks(page, lab);
  await page.goForward();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  // And a reload on the way back, which the server draws.
  await page.goBack();
  await page.reload();
  await backWithTicks(page, lab);
  lab.expectNoErrors();
});

test('the glossary, the summary and a quiz answer link back into a started chapter', async ({ page }) => {
  const lab = await started(page);
  const mine = lab.sandboxId();
  for (const from of ['/glossary', '/summary']) {
    await page.goto(from);
    await lab.hydrated();
    await page.locator('a[href="/lab?chapter=1"]').first().click();
    await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
    await backWithTicks(page, lab);
  }
  // A quiz answer's "see it in the lab" loads its scenario beside its chapter, in a fresh
  // sandbox: the student's started run is left as it is.
  await page.goto('/quiz');
  await lab.hydrated();
  const demo = '/lab?fresh=1&scenario=1&variant=unguarded&chapter=1';
  await page.goto(demo);
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
  await lab.hydrated();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '1');
  await expect(step(page, 1)).toHaveAttribute('data-done', 'true');
  expect(lab.sandboxId()).not.toBe(mine);
  await expect(step(page, 2)).toHaveAttribute('data-done', 'false');
  const taps = Number(await lab.phoneMessage.getAttribute('data-taps'));
  await lab.send.click();
  await expect(lab.phoneMessage).toHaveAttribute('data-taps', String(taps + 1));
  // The started run is still there, its ticks with it.
  await page.goto(`/lab/${mine}?chapter=1`);
  await backWithTicks(page, lab);
  lab.expectNoErrors();
});

test('the other language, mid-chapter and from the front page, keeps the ticks', async ({ page }) => {
  const lab = await started(page);
  const lang = await page.locator('html').getAttribute('lang');
  await lab.langSwitch.click();
  await expect(page.locator('html')).not.toHaveAttribute('lang', lang!);
  await expect(step(page, 2)).toHaveAttribute('data-done', 'true');
  // The server now draws the other language.
  await page.reload();
  await expect(page.locator('html')).not.toHaveAttribute('lang', lang!);
  await backWithTicks(page, lab);
  await page.goto('/');
  await lab.hydrated();
  await page.getByTestId('course-continue').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
  await backWithTicks(page, lab);
  lab.expectNoErrors();
});

test('every chapter link of the glossary and the summary, in both languages, opens a lab that hydrates', async ({ page }) => {
  test.setTimeout(120_000);
  const lab = await started(page);
  for (const lang of ['first', 'other']) {
    if (lang === 'other') {
      await page.goto('/glossary');
      await lab.hydrated();
      await lab.langSwitch.click();
    }
    for (const from of ['/glossary', '/summary']) {
      await page.goto(from);
      await lab.hydrated();
      const hrefs = [...new Set(await page.locator('a[href^="/lab?chapter="]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!)))];
      expect(hrefs.length, `${from} links into the course`).toBeGreaterThan(0);
      for (const href of hrefs) {
        await page.goto(href);
        await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=\d$/);
        await lab.hydrated();
        const n = href.split('=').pop()!;
        await expect(page.getByTestId('chapter'), href).toHaveAttribute('data-chapter', n);
        if (n === '1') await expect(step(page, 2)).toHaveAttribute('data-done', 'true');
      }
    }
  }
  lab.expectNoErrors();
});
