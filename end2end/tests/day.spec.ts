import { test, expect } from './lab-page';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

// A day at PocketPay, fast-forwarded (/day), as a student finds and runs it: from the front
// page, the smallest scale picked, the day run with its progress bar followed to the end, then
// the two runs' figures and the chart at full scale read.

async function hydrated(page: Page) {
  await page.locator('html[data-hydrated]').waitFor();
}

test('a day at 1:10,000 runs from the front page to its figures, guarded and not', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await hydrated(page);
  if ((await page.locator('html').getAttribute('lang')) !== 'en') await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.getByTestId('home-day').click();
  await expect(page).toHaveURL(/\/day$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('A day at PocketPay, fast-forwarded');

  // 1:10 is offered first; the smallest scale is picked.
  await expect(page.getByTestId('day-scale-10')).toBeChecked();
  await expect(page.getByTestId('day-expected')).toHaveAttribute('data-too-small', 'false');
  await page.getByTestId('day-scale-10000').check();
  // Too small a day to show the harm: the page says what to expect instead of a bare 0.
  await expect(page.getByTestId('day-expected')).toHaveAttribute('data-too-small', 'true');
  await expect(page.getByTestId('day-expected')).toContainText('about 0.5 double charges');
  const run = page.getByTestId('day-run');
  await expect(run).toHaveText(/1:10,000|has run/);
  if (await run.isEnabled()) await run.click();

  const progress = page.getByTestId('day-progress');
  await expect(progress).toHaveAttribute('aria-valuenow', /^\d+$/);
  await expect(progress).toHaveAttribute('aria-valuenow', '100', { timeout: 90_000 });
  await expect(page.getByTestId('day-status')).toHaveAttribute('data-status', 'done');
  await expect(run).toBeDisabled();

  const findings = page.getByTestId('day-findings');
  const cell = (row: string, guards: 'on' | 'off') =>
    findings.locator(`[data-testid="day-figure"][data-row="${row}"][data-guards="${guards}"]`);
  for (const guards of ['on', 'off'] as const) {
    await expect(cell('day-row-sent', guards)).toHaveAttribute('data-value', '200');
    await expect(cell('day-row-invariants', guards)).toHaveAttribute('data-value', '0');
  }
  // Both runs met the same faults: the guards are the only difference between them.
  await expect(findings.getByTestId('day-paired')).toHaveAttribute('data-same', 'true');
  for (const row of ['day-row-requests-lost', 'day-row-answers-lost', 'day-row-crashes', 'day-row-timeouts']) {
    await expect(cell(row, 'off')).toHaveAttribute('data-value', (await cell(row, 'on').getAttribute('data-value'))!);
  }
  for (const row of ['day-row-double-charges', 'day-row-double-credits', 'day-row-lost-events', 'day-row-tickets']) {
    await expect(cell(row, 'on')).toHaveAttribute('data-value', '0');
  }
  // The chart: a month at full scale by default, the lesson's 340 marked; a day on request.
  const chart = findings.getByTestId('day-chart');
  await expect(chart.getByTestId('day-bar')).toHaveCount(8);
  await expect(chart.getByTestId('day-lesson-line')).toHaveCount(1);
  const offCharges = chart.locator('[data-testid="day-bar"][data-measure="double_charges"][data-guards="off"]');
  const measured = Number(await cell('day-row-double-charges', 'off').getAttribute('data-value'));
  await expect(offCharges).toHaveAttribute('data-value', String(measured * 10_000 * 30));
  await findings.getByTestId('day-period-day').click();
  await expect(offCharges).toHaveAttribute('data-value', String(measured * 10_000));
  await expect(chart.getByTestId('day-lesson-line')).toHaveCount(0);

  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);

  // In Bangla the same page, the same day.
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('পকেটপে-র একটা দিন, দ্রুত সামনে টেনে');
  await expect(cell('day-row-sent', 'on')).toHaveText('২০০');
  await expect(page.getByTestId('day-expected')).toContainText('১:১০,০০০');

  // Come back to it: the kept day is there after a reload, nothing to run again.
  await page.reload();
  await hydrated(page);
  await page.getByTestId('day-scale-10000').check();
  await expect(page.getByTestId('day-status')).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('day-findings').getByTestId('day-paired')).toHaveAttribute('data-same', 'true');
});
