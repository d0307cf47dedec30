import { test, expect, LabPage } from './lab-page';

// Each safeguard says what breaks without it, and the four that work inside the idempotency
// table say so when the table is off instead of reading "on" while doing nothing.

const SEED = 41_414;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('the table off shows the claim, fingerprint, recovery and window as inactive, and why', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.openSeeded(SEED);

  const rows = page.locator('li.safeguard');
  await expect(rows).toHaveCount(14);
  const without = page.locator('li.safeguard .safeguard-without');
  await expect(without).toHaveCount(14);
  for (const text of await without.allTextContents()) expect(text.trim().length).toBeGreaterThan(20);
  await expect(page.locator('li.safeguard[data-active="false"]')).toHaveCount(0);

  await lab.setSafeguard('idempotency_table', false);
  const inactive = page.locator('li.safeguard[data-active="false"]');
  await expect(inactive).toHaveCount(4);
  expect(await inactive.evaluateAll((els) => els.map((e) => e.getAttribute('data-safeguard')))).toEqual([
    'atomic_claim',
    'fingerprint_check',
    'stuck_recovery',
    'window_hours',
  ]);
  for (const guard of ['atomic_claim', 'fingerprint_check', 'stuck_recovery', 'window_hours']) {
    const note = page.locator(`li.safeguard[data-safeguard="${guard}"] .safeguard-inactive`);
    await expect(note).toBeVisible();
    await expect(note).toContainText('idempotency_table');
  }
  // Their own switches still read on: that is the point of the note.
  await expect(lab.safeguard('atomic_claim')).toBeChecked();
  await expect(page.locator('li.safeguard[data-safeguard="ledger_unique"]')).toHaveAttribute('data-active', 'true');

  await lab.setSafeguard('idempotency_table', true);
  await expect(page.locator('li.safeguard[data-active="false"]')).toHaveCount(0);
  await expect(page.locator('.safeguard-inactive')).toHaveCount(0);
  lab.expectNoErrors();
});
