import { test, expect, LabPage } from './lab-page';

// How the lab's sentences read: whole Bangla sentences, and English counts in the singular or
// the plural as the number asks.

const SEED = 41_203;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('in Bangla, a claimed key is a whole sentence and the way back to the present is a word', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED);
  await lab.speedUp(api, 10);
  await lab.send.click();
  await lab.phoneSays('receipt');

  await lab.kind('key_claimed').first().click();
  await expect(page.getByTestId('event-details')).toContainText(
    'key-টি claim করা হলো: IN_PROGRESS অবস্থার একটি সারি commit করা হয়েছে',
  );
  await expect(page.getByTestId('rewind-now')).toHaveText('বর্তমানে ফিরে যান');
  lab.expectNoErrors();
});

test('in English, one row is a row, two are rows, and one request in flight is a request', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED);
  await lab.speedUp(api, 10);
  await lab.langSwitch.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  const ledgerRows = page.locator('[data-table="payments.ledger"]').getByTestId('table-rows');
  const keyRows = page.locator('[data-table="payments.idempotency_keys"]').getByTestId('table-rows');

  await expect(ledgerRows).toHaveText('0 rows');
  expect(await lab.tap()).toBe('receipt');
  await expect(ledgerRows).toHaveText('1 row');
  await expect(keyRows).toHaveText('1 row');
  expect(await lab.tap()).toBe('receipt');
  await expect(ledgerRows).toHaveText('2 rows');
  await expect(keyRows).toHaveText('2 rows');
  await expect(page.getByTestId('events-count')).toHaveText(/^\d+ events$/);

  await lab.putFaults(api, { response_loss_pct: 100 });
  expect(await lab.tap()).toBe('unknown');
  await expect(page.getByTestId('key-requests')).toHaveText('pending, 1 request sent with it');
  await lab.putFaults(api, { response_loss_pct: 0 });
  expect(await lab.tap()).toBe('receipt');
  await expect(ledgerRows).toHaveText('3 rows');
  lab.expectNoErrors();
});
