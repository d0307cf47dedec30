import { test, expect } from './lab-page';
import AxeBuilder from '@axe-core/playwright';

// The front page says what idempotency is in one plain sentence before anything else, and its
// second card speaks to a student, not an engineer.

for (const [lang, what, own] of [
  ['bn', /Idempotency মানে একই কাজ/, /নিজস্ব একটি কপি/],
  ['en', /Idempotency means that doing something once or many times has the same effect/, /its own copy of PocketPay/],
] as const) {
  test(`the front page says what idempotency is, plainly (${lang})`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto('/');
    await page.locator('html[data-hydrated]').waitFor();
    if (lang === 'en') await page.getByTestId('lang-switch').click();
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    const first = page.locator('main p').first();
    await expect(first).toHaveAttribute('data-testid', 'home-what');
    await expect(first).toHaveText(what);
    const card = page.locator('main section').nth(1);
    await expect(card).toContainText(own);
    // No engineer's words without a gloss: no seed, no race.
    await expect(card).not.toContainText(/\bseed\b|\brace\b/i);
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => v.id)).toEqual([]);
    expect(errors).toEqual([]);
  });
}
