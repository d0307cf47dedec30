import { test, expect, LabPage, seedFor } from './lab-page';

// A server function that fails is explained in the page's own language, by the kind of failure,
// and a language switch translates the explanation; the control waits while its call is out and
// works again once the server can be reached.

test('a reset the server never hears of is explained in Bangla, then in English', async ({ page }, info) => {
  const lab = new LabPage(page);
  await lab.openSeeded(seedFor(info));
  const panel = page.locator('section.instructor');
  const error = panel.getByTestId('control-error');
  await expect(error).toHaveText('');

  // The network drops every call to the reset server function.
  await page.route(/\/rpc\/reset_sandbox/, (route) => route.abort('failed'));
  await lab.resetLab();
  await expect(error).toHaveText('সার্ভারের কাছে পৌঁছানো গেল না। সংযোগ দেখে আবার চেষ্টা করুন।');
  await expect(lab.reset).toBeEnabled();

  // The same error, now read in English: it was kept as a kind, not as a sentence.
  await lab.langSwitch.click();
  await expect(error).toHaveText('The server could not be reached. Check the connection and try again.');

  // The connection is back: the reset goes through and the explanation goes away.
  await page.unroute(/\/rpc\/reset_sandbox/);
  await expect(lab.kind('sandbox_reset')).toHaveCount(0);
  await lab.resetLab();
  // The timeline starts again from the reset.
  await expect(lab.kind('sandbox_reset')).toHaveCount(1);
  await expect(error).toHaveText('');
});

test('a seed the page cannot read is refused beside the form, in the page language', async ({ page }, info) => {
  const lab = new LabPage(page);
  await lab.openSeeded(seedFor(info));
  const seedForm = page.locator('form.seed');
  await seedForm.locator('input').fill('১২x');
  await seedForm.locator('button[type="submit"]').click();
  await expect(seedForm.getByRole('alert')).not.toHaveText('');
  const bangla = await seedForm.getByRole('alert').textContent();
  await lab.langSwitch.click();
  await expect(seedForm.getByRole('alert')).not.toHaveText(bangla!);
  await expect(page).toHaveURL(/\/lab\/[0-9a-f-]{36}$/);
});

test('at a phone width the instructor panel wraps its words inside the screen', async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const lab = new LabPage(page);
  await lab.openSeeded(seedFor(info));
  await page.locator('.instructor details.fold > summary').click();
  await page.route(/\/rpc\/reset_sandbox/, (route) => route.abort('failed'));
  await lab.resetLab();
  const error = page.locator('section.instructor').getByTestId('control-error');
  await expect(error).not.toHaveText('');
  // The sentence is longer than the screen is wide: it must wrap, not run off the edge.
  const box = (await error.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(box.height).toBeGreaterThan(30);
  const reset = (await lab.reset.boundingBox())!;
  expect(reset.x + reset.width).toBeLessThanOrEqual(390);
});
