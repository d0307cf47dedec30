import { test, expect, LabPage, seedFor, noteSeed } from './lab-page';

// Send first, the rest after (src/app/lab/later.rs): on a slow phone Shimul's phone works as
// soon as the page's first code has hydrated; the other panels show the server's drawing until
// their own code has come, and then come alive with everything that happened meanwhile.

test('Send works before the later panels have come, and they catch up when they do', async ({ page }, info) => {
  const seed = seedFor(info);
  noteSeed(seed);
  const lab = new LabPage(page);
  // Hold every split file the lab asks for after its first code: the later panels' code.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const held: string[] = [];
  await page.route(/\/pkg\/.*\.wasm$/, async (route) => {
    const url = route.request().url();
    if (/\/pkg\/pocketpay-lab[.-][^/]*\.wasm$/.test(url)) return route.continue();
    held.push(url);
    await released;
    await route.continue();
  });

  await page.goto(`/lab?seed=${seed}`);
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}$/);
  await page.locator('html[data-send-ready]').waitFor();
  // Ten times faster, so the pipeline pays Tithi within the test's patience.
  await lab.speedUp(`/api/sandboxes/${lab.sandboxId()}`, 10);
  await expect.poll(() => held.length).toBeGreaterThan(0);
  await expect(page.locator('html')).not.toHaveAttribute('data-hydrated', /.*/);
  // The later panels are there to read, as the server drew them.
  await expect(lab.timeline).toBeAttached();
  await expect(lab.damage).toBeVisible();
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '0');

  // Shimul sends; his phone hears the receipt.
  await lab.send.click();
  await lab.phoneSays('receipt');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');

  // The later panels' code comes: they draw what happened while they waited.
  release();
  await lab.hydrated();
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.kind('debited')).toHaveCount(1);
  // And they are live: a reset from the instructor's panel empties the timeline again.
  await lab.resetLab();
  await expect(lab.kind('sandbox_reset')).toHaveCount(1);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '0');
  lab.expectNoErrors();

  // Coming back: a reload draws the same lab, every panel live.
  await page.unroute(/\/pkg\/.*\.wasm$/);
  await page.reload();
  await lab.hydrated();
  await expect(lab.kind('sandbox_reset')).toHaveCount(1);
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '0');
});
