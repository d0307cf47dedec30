import { test, expect } from '@playwright/test';
import { LabPage } from './lab-page';

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
