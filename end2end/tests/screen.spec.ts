import { test, expect, LabPage } from './lab-page';
import AxeBuilder from '@axe-core/playwright';

test.describe('the lab screen', () => {
  test('speaks Bangla first and English on request, and remembers the choice', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
    await expect(lab.send).toHaveText('পাঠান');
    await expect(lab.shimulBalance).toHaveText('৳২,০০০');
    await lab.send.click();
    await lab.phoneSays('receipt');
    await expect(lab.phoneMessage).toContainText('তিথিকে ৳৫০০ পাঠানো হয়েছে');
    await expect(lab.smsList).toContainText('৳৫০০');

    await lab.langSwitch.click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(lab.send).toHaveText('Send');
    await expect(lab.shimulBalance).toHaveText('৳1,500');
    await expect(lab.phoneMessage).toContainText('৳500 sent to Tithi');
    await expect(lab.smsList).toContainText('You have received ৳500 from Shimul.');

    // The server renders the next page in English too.
    await page.reload();
    await lab.hydrated();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(lab.send).toHaveText('Send');
    await expect(page.locator('#damage-title')).toHaveText('Damage meter');
    await lab.langSwitch.click();
    await expect(lab.send).toHaveText('পাঠান');
    lab.expectNoErrors();
  });

  test('works at a phone width, by keyboard', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const lab = new LabPage(page);
    await lab.open();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Type an amount and send it with the keyboard alone.
    await lab.amount.focus();
    await lab.amount.fill('৫০০');
    await page.keyboard.press('Enter');
    await lab.phoneSays('receipt');
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
    await lab.amount.fill('abc');
    await lab.send.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('#amount-error')).toContainText('পূর্ণ টাকায়');
    await expect(lab.amount).toHaveAttribute('aria-invalid', 'true');
    await context.close();
  });

  test('the crafted attacks: a race on one key gets 409, a reused key gets 422', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await page.getByTestId('attack-race').click();
    const result = page.getByTestId('attack-result');
    await expect(result.locator('li')).toHaveCount(2);
    await expect(result.locator('li').nth(0)).toHaveAttribute('data-status', '201');
    await expect(result.locator('li').nth(1)).toHaveAttribute('data-status', '409');
    // The status comes in the page's digits, with its words.
    await expect(result.locator('li').nth(1)).toContainText('৪০৯: একই key-র কাজ এখনও চলছে');
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');

    await page.getByTestId('attack-reused-key').click();
    await expect(result.locator('li').nth(1)).toHaveAttribute('data-status', '422');
    await expect(result).toContainText('idempotency-key-reused');
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '2');
  });

  test('reset returns to the lesson start and the phone forgets its pending key', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.fast();
    await lab.setFault('response_loss_pct', 100);
    await lab.send.click();
    await lab.phoneSays('unknown');
    await lab.resetLab();
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');
    await expect(lab.key).toHaveText('—');
    await expect(lab.fault('response_loss_pct')).toHaveValue('0');
    await expect(page.locator('[data-table="payments.ledger"]')).toContainText(/0 row|০টি সারি/);
  });

  test('every fault has one control: the instructor\'s panel points to the network panel for the network\'s', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    for (const id of ['request_loss_pct', 'response_loss_pct', 'latency_ms', 'phone_timeout_ms', 'auto_retries', 'retry_backoff_ms', 'lb_retry']) {
      await expect(page.locator(`[data-testid$="fault-${id}"]`)).toHaveCount(1);
    }
    const faults = page.locator('fieldset.faults');
    await expect(faults.locator('a[href="#network-title"]')).toBeVisible();
    await expect(page.getByTestId('fault-gateway_latency_ms')).toBeVisible();
    await lab.setCrash('relay_after_publish', 'always');
    // The network panel's control still reaches the server.
    await lab.setFault('response_loss_pct', 50);
    await expect(lab.fault('response_loss_pct')).toHaveValue('50');
    lab.expectNoErrors();
  });

  for (const lang of ['bn', 'en']) {
    test(`has no serious or critical accessibility violation (${lang})`, async ({ page }) => {
      const lab = new LabPage(page);
      await lab.open();
      if (lang === 'en') await lab.langSwitch.click();
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await lab.send.click();
      await lab.phoneSays('receipt');
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`)).toEqual([]);
    });
  }
});
