import { test, expect, LabPage } from './lab-page';

// Shimul's phone shows only what the PocketPay app knows: the balance of the last receipt it
// received, a Send button that says what the app is doing, and the requests it has sent,
// the one in flight included. The other panels show the stores' truth.

const SEED = 30_517;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('with every response lost, the phone keeps the last confirmed balance while the stores move on', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED);
  await lab.speedUp(api, 10);
  await lab.putFaults(api, { response_loss_pct: 100 });

  await lab.send.click();
  // The debit ran: the damage meter and the inspector say so…
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(page.locator('[data-table="payments.ledger"] td', { hasText: 'TXN-88412' })).toHaveCount(1);
  // …but no answer reached the phone: it still shows the opening balance, and says it does not know.
  await lab.phoneSays('unknown');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');
  await expect(lab.shimulBalance).toHaveText('৳২,০০০');
  // Tithi's phone shows the wallet's truth: the pipeline paid her all the same.
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');

  // A reload keeps the pending transfer, unfinished, and the app still knows nothing.
  await page.reload();
  await lab.hydrated();
  await lab.phoneSays('unfinished');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');

  // The network heals; the retry's receipt (the stored one) tells the app its balance.
  await lab.putFaults(api, { response_loss_pct: 0 });
  await lab.send.click();
  await lab.phoneSays('receipt');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  await expect(lab.shimulBalance).toHaveText('৳১,৫০০');
  // What a receipt told the app outlives a reload.
  await page.reload();
  await lab.hydrated();
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  expect((await (await page.request.get(`${api}/state`)).json()).damage.debits, `seed ${SEED}`).toBe(1);
  lab.expectNoErrors();
});

test('while the first request is out, the button says it is sending and the phone counts it', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED);
  // At ×1 the phone waits its 5 s timeout in wall time: long enough to look at the screen.
  await lab.putFaults(api, { response_loss_pct: 100, auto_retries: 0 });
  const requests = page.getByTestId('key-requests');

  await expect(lab.send).toHaveText('পাঠান');
  await lab.send.click();
  await lab.phoneSays('sending');
  await expect(lab.send).toHaveText('পাঠানো হচ্ছে…');
  await expect(lab.send).toHaveAttribute('aria-busy', 'true');
  await expect(lab.send).toHaveAttribute('aria-disabled', 'true');
  await expect(lab.send.locator('.spinner')).toBeVisible();
  await expect(requests).toHaveText('অপেক্ষমাণ, এই key দিয়ে ১টি request গেছে');

  // Only once an outcome is on screen does the button offer to send again.
  await lab.phoneSays('unknown');
  await expect(lab.send).toHaveText('আবার পাঠান');
  await expect(lab.send).toHaveAttribute('aria-busy', 'false');
  await expect(lab.send.locator('.spinner')).toHaveCount(0);
  await expect(requests).toHaveText('অপেক্ষমাণ, এই key দিয়ে ১টি request গেছে');

  // The second tap is counted as it leaves too.
  await lab.send.click();
  await expect(lab.send).toHaveText('পাঠানো হচ্ছে…');
  await expect(requests).toHaveText('অপেক্ষমাণ, এই key দিয়ে ২টি request গেছে');
  await lab.phoneSays('unknown');
  await expect(lab.send).toHaveText('আবার পাঠান');
  lab.expectNoErrors();
});
