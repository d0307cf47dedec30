import { test, expect, LabPage } from './lab-page';

// Text that used to bypass the locale files: the SMS's sender, the replay's consumers and the
// replay form's limit follow the page's language and digits.

const SEED = 52_525;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('the SMS sender and the replay form speak the page language', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.openSeeded(SEED);
  await lab.fast();
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.smsList.locator('.sms-from')).toHaveText('পকেটপে');
  const options = page.getByTestId('replay-consumer').locator('option');
  await expect(options.first()).toContainText('সার্ভিস');
  // The form allows what the server allows: 31 days back, the longest jump.
  await expect(page.getByTestId('replay-days')).toHaveAttribute('max', '31');

  await lab.langSwitch.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(lab.smsList.locator('.sms-from')).toHaveText('PocketPay');
  await expect(options.first()).toHaveText('wallet service (credits Tithi)');
  lab.expectNoErrors();
});
