import { test, expect, LabPage } from './lab-page';

// docs/reference.md §7, scenario 1, through Shimul's phone: a response lost on the train's network, and the
// tap that follows.

test.describe('scenario 1: a lost response and a second tap', () => {
  test('without a kept key and the idempotency table, the second tap charges twice', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.fast();
    await lab.setSafeguard('key_persistence', false);
    await lab.setSafeguard('idempotency_table', false);
    await lab.setFault('response_loss_pct', 100);

    await lab.send.click();
    // The phone hears nothing: one generic error, the outcome unknown…
    await lab.phoneSays('unknown');
    await expect(lab.phoneMessage.locator('[data-outcome="unknown"]')).toBeVisible();
    // …yet the money has left: the ledger has the debit, while the phone shows only what it
    // was told, the opening balance.
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');
    const firstKey = await lab.key.textContent();

    await lab.setFault('response_loss_pct', 0);
    await lab.send.click();
    await lab.phoneSays('receipt');
    await expect(lab.key).not.toHaveText(firstKey!);
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '1000');
    await expect(lab.figure('intents')).toHaveAttribute('data-value', '1');
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '2');
    await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
    await expect(lab.damage).toHaveAttribute('data-harmed', 'true');
    await expect(lab.kind('debited').and(page.locator('[data-outcome="escaped"]'))).toHaveCount(1);
  });

  test('with the key kept and the table on, the retry shows the same receipt and one debit', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.fast();
    await lab.setFault('response_loss_pct', 100);

    await lab.send.click();
    await lab.phoneSays('unknown');
    await expect(lab.key).toHaveAttribute('data-pending', 'true');
    const key = (await lab.key.textContent())!;
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // No answer came: the phone cannot show a balance it was never told.
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '2000');

    await lab.setFault('response_loss_pct', 0);
    await lab.send.click();
    await lab.phoneSays('receipt');
    await expect(lab.phoneMessage.locator('.receipt')).toHaveAttribute('data-txn', 'TXN-88412');
    await expect(lab.phoneMessage).toContainText('TXN-88412');
    await expect(lab.phoneMessage).toContainText('Idempotent-Replayed');
    await expect(lab.key).toHaveText(key);
    // The receipt is the first execution's: the ledger has that TXN once, and one debit.
    await expect(page.locator('[data-table="payments.ledger"] td', { hasText: 'TXN-88412' })).toHaveCount(1);
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
    await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '0');
    await expect(lab.kind('response_replayed').and(page.locator('[data-outcome="caught"]'))).toHaveCount(1);
    // The pipeline pays Tithi once, and she gets one SMS.
    await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
    await expect(lab.smsList.locator('li')).toHaveCount(1);
    await expect(lab.damage).toHaveAttribute('data-harmed', 'false');
    // A new transfer gets a new key.
    await lab.send.click();
    await lab.phoneSays('receipt');
    await expect(lab.key).not.toHaveText(key);
    await expect(lab.shimulBalance).toHaveAttribute('data-value', '1000');
  });

  test('a reload and a reopened app keep the pending transfer, and only a tap sends it again with its key', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.fast();
    await lab.setFault('response_loss_pct', 100);
    await lab.send.click();
    await lab.phoneSays('unknown');
    const key = (await lab.key.textContent())!;

    await page.reload();
    await lab.hydrated();
    await expect(lab.key).toHaveText(key);
    await expect(lab.key).toHaveAttribute('data-pending', 'true');
    // On opening, the app shows its pending transfer as unfinished and sends nothing by itself.
    await lab.phoneSays('unfinished');
    await page.waitForTimeout(1_000);
    await expect(lab.kind('request_sent')).toHaveCount(1);
    await lab.send.click();
    await lab.phoneSays('unknown');
    await expect(lab.key).toHaveText(key);
    await expect(lab.kind('request_sent')).toHaveCount(2);

    await lab.setFault('response_loss_pct', 0);
    await lab.reopenApp.click();
    await lab.phoneSays('unfinished');
    await expect(lab.key).toHaveText(key);
    await lab.send.click();
    await lab.phoneSays('receipt');
    await expect(lab.key).toHaveText(key);
    await expect(lab.phoneMessage).toContainText('TXN-88412');
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  });

  test('the button guard turns a double tap into one request; without it, and without a kept key, two debits', async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open();
    await lab.send.dblclick();
    await lab.phoneSays('receipt');
    await expect(lab.kind('request_sent')).toHaveCount(1);
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');

    await lab.setSafeguard('button_guard', false);
    await lab.setSafeguard('key_persistence', false);
    await lab.send.dblclick();
    await expect(lab.kind('request_sent')).toHaveCount(3);
    await expect(lab.figure('debits')).toHaveAttribute('data-value', '3');
    await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '1');
  });
});
