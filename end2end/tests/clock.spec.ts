import { test, expect, LabPage } from './lab-page';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

test.describe('the sandbox clock, live from the server', () => {
  test('/lab makes a sandbox and a returning browser finds the same one', async ({ page }) => {
    const lab = new LabPage(page);
    const first = await lab.open();
    await expect(lab.clock).toBeVisible();
    // Without a seed, the entrance brings this browser back to its sandbox.
    await page.goto('/lab');
    await page.waitForURL(/\/lab\/[0-9a-f-]{36}$/);
    expect(lab.sandboxId()).toBe(first);
  });

  test('pause, step, jump and resume move the clock', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

    const lab = new LabPage(page);
    await lab.open();
    // The stream connects and the sandbox's first event arrives.
    await expect(lab.events.first()).toBeVisible();
    await expect(page.locator('[data-kind="sandbox_created"]')).toHaveCount(1);

    await lab.pause.click();
    await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
    await expect(page.locator('[data-kind="clock_changed"]').first()).toBeVisible();
    const paused = await lab.nowMs();
    // Paused means paused: the face does not move.
    const face = await lab.clock.textContent();
    await page.waitForTimeout(1_200);
    expect(await lab.clock.textContent()).toBe(face);

    // Step runs the next scheduled step, and the clock moves to its time.
    const due = Number(await lab.clock.getAttribute('data-next-due-ms'));
    expect(due).toBeGreaterThan(paused);
    await lab.step.click();
    await expect.poll(() => lab.nowMs()).toBe(due);
    const stepped = due;
    await expect(page.locator('[data-kind="clock_stepped"]')).toHaveCount(1);

    await lab.jump('hour');
    await expect.poll(() => lab.nowMs()).toBe(stepped + HOUR);
    await expect(page.locator('[data-kind="clock_jumped"]')).toHaveCount(1);
    // The hour's routine jobs are on the jobs lane, or folded into one row of the timeline.
    await expect(page.locator('[data-layer="jobs"], [data-testid="timeline-fold"]').first()).toBeVisible();

    await lab.jump('day');
    await expect.poll(() => lab.nowMs()).toBe(stepped + 25 * HOUR);
    // A day of hourly jobs ran on the way, each on the jobs lane once routine jobs are shown.
    await page.getByTestId('show-routine').check();
    await expect.poll(() => page.locator('[data-kind="inbox_cleaned"]').count()).toBeGreaterThanOrEqual(24);

    await lab.speed.selectOption('10');
    await lab.pause.click();
    await expect(lab.clock).toHaveAttribute('data-mode', 'live');
    const resumedFace = await lab.clock.textContent();
    await expect.poll(() => lab.clock.textContent(), { timeout: 5_000 }).not.toBe(resumedFace);
    expect(errors).toEqual([]);
  });

  test('the timeline resumes after a reload without losing or repeating events', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.pause.click();
    await expect(lab.clock).toHaveAttribute('data-mode', 'paused');
    await lab.jump('minute');
    await expect(page.locator('[data-kind="clock_jumped"]').first()).toBeVisible();
    const ids = () => lab.events.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-event-id'))));
    const before = await ids();
    expect(before.length).toBeGreaterThanOrEqual(3);
    await page.reload();
    await lab.hydrated();
    // The same events, each once, in the order they happened, read back from the server's
    // event log.
    await expect.poll(ids).toEqual(before);
    expect(new Set(before).size).toBe(before.length);
    expect([...before].sort((a, b) => a - b)).toEqual(before);
  });

  test('an unknown sandbox gets a readable message, not a crash', async ({ page }) => {
    await page.goto('/lab/00000000-0000-4000-8000-000000000000');
    await expect(page.getByRole('alert')).toContainText('ল্যাব');
  });
});
