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

// A page carries one language's sentences: the switch fetches the other's once, switching back
// fetches nothing, a reload and a page reached by a link come back in the chosen language, and
// a switch whose sentences cannot be fetched loads the page again in that language instead.
test('a page is sent its own language; the switch fetches the other once', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  const fetched: string[] = [];
  page.on('request', (r) => {
    const m = new URL(r.url()).pathname.match(/^\/strings\/(\w+)\./);
    if (m) fetched.push(m[1]);
  });
  await page.goto('/');
  await page.locator('html[data-hydrated]').waitFor();
  expect(fetched).toEqual(['bn']);
  const what = page.getByTestId('home-what');
  await expect(what).toContainText('Idempotency মানে');

  const lang = page.getByTestId('lang-switch');
  await lang.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(what).toContainText('Idempotency means');
  await lang.click();
  await expect(what).toContainText('Idempotency মানে');
  await lang.click();
  await expect(what).toContainText('Idempotency means');
  expect(fetched).toEqual(['bn', 'en']);

  await page.reload();
  await page.locator('html[data-hydrated]').waitFor();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(what).toContainText('Idempotency means');
  await page.locator('nav').getByRole('link', { name: 'Glossary' }).click();
  await expect(page).toHaveURL(/\/glossary$/);
  await page.goBack();
  await expect(what).toContainText('Idempotency means');

  // The Bangla sentences cannot be fetched once: the page is loaded again in Bangla instead.
  let refused = 0;
  await page.route(/\/strings\/bn\./, (route) => (refused++ === 0 ? route.abort() : route.continue()));
  await lang.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
  await expect(what).toContainText('Idempotency মানে');
  await page.locator('html[data-hydrated]').waitFor();
  expect(refused).toBeGreaterThan(1);
  await lang.click();
  await expect(what).toContainText('Idempotency means');
  expect(errors.filter((e) => !e.includes('did not load'))).toEqual([]);
});
