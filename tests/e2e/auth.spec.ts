import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { expect, test } from './fixtures';
import { holdScripts, hydrated, logIn, newShopper, openAccountDialog, signUpAndVerify, waitForMail } from './journeys';

const mailbox = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;

test.describe('accounts', () => {
  test('sign-up asks for all five fields and matching passwords', async ({ page }) => {
    await page.goto('/');
    const dialog = await openAccountDialog(page, 'Sign up');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Please fill in all fields.');
    await dialog.getByLabel('First name').fill('Ada');
    await dialog.getByLabel('Last name').fill('Lovelace');
    await dialog.getByLabel('Email').fill('ada@example.com');
    await dialog.getByLabel('Password', { exact: true }).fill('analytical-1');
    await dialog.getByLabel('Confirm password').fill('analytical-2');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Passwords do not match');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });

  test('a new shopper finds their confirmation e-mail in the shop’s demo mailbox, titled as such', async ({ page, baseURL }) => {
    const shopper = newShopper('Noor');
    const signup = await page.request.post('/api/auth/signup', {
      headers: { origin: baseURL ?? '' },
      data: { ...shopper, confirmPassword: shopper.password },
    });
    expect(signup.ok()).toBe(true);
    await page.goto(`http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}/`);
    await expect(page).toHaveTitle('Aurelia demo mailbox');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Aurelia demo mailbox');
    await expect(page.getByText('This demo shop sends no real e-mail')).toBeVisible();
    await expect(page.getByText(shopper.email).first()).toBeVisible();
  });

  test('sign up → verify from the mailbox → log in → log out', async ({ page }) => {
    const shopper = newShopper('Maya');
    await signUpAndVerify(page, shopper);

    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Maya');
    await expect(nav.getByRole('link', { name: 'My Orders' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Wishlist' })).toBeVisible();

    // The session is an httpOnly cookie the page's scripts cannot read.
    expect(await page.evaluate(() => document.cookie)).not.toContain('aurelia_session');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'aurelia_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    // Still signed in on the next page.
    await page.goto('/contact');
    await hydrated(page, '.account-button');
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Maya');

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    await expect(nav.getByRole('link', { name: 'My Orders' })).toHaveCount(0);
    const session = await page.request.get('/api/auth/session');
    expect(await session.json()).toEqual({ user: null });

    await logIn(page, shopper.email, shopper.password);
    await expect(page.getByText('Welcome back!')).toBeVisible();
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Maya');
  });

  test('a confirmation link asks for the password chosen with it; another password confirms nothing', async ({ page }) => {
    const shopper = newShopper('Nora');
    await page.goto('/');
    const headers = { origin: new URL(page.url()).origin };
    const signup = await page.request.post('/api/auth/signup', {
      headers,
      data: { ...shopper, confirmPassword: shopper.password },
    });
    expect(signup.ok()).toBe(true);
    const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
    await page.goto(mail.link);
    await hydrated(page, '.narrow-form');
    await page.getByLabel('Password').fill('someone-elses-password');
    await page.getByRole('button', { name: 'Confirm my account' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'That is not the password this account was created with. Enter the password you chose when you signed up, or reset your password.',
    );
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    // The link was not spent: the right password still confirms it.
    await page.getByLabel('Password').fill(shopper.password);
    await page.getByRole('button', { name: 'Confirm my account' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Nora');
  });

  test('a password typed before the confirmation form is live is the one sent, and it cannot be sent before', async ({
    page,
    baseURL,
  }) => {
    const shopper = newShopper('Pia');
    const signup = await page.request.post('/api/auth/signup', {
      headers: { origin: baseURL ?? '' },
      data: { ...shopper, confirmPassword: shopper.password },
    });
    expect(signup.ok()).toBe(true);
    const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
    const release = await holdScripts(page);
    await page.goto(mail.link, { waitUntil: 'commit' });
    const confirm = page.getByRole('button', { name: 'Confirm my account' });
    await expect(confirm).toBeDisabled();
    await page.getByLabel('Password').fill(shopper.password);
    await page.getByLabel('Password').press('Enter');
    await expect(page).toHaveURL(mail.link);
    release();
    await expect(confirm).toBeEnabled();
    await confirm.click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Pia');
  });

  test('an account not confirmed yet can ask for its confirmation link again, and confirm with it', async ({ page }) => {
    const shopper = newShopper('Olga');
    await page.goto('/about');
    const headers = { origin: new URL(page.url()).origin };
    const signup = await page.request.post('/api/auth/signup', {
      headers,
      data: { ...shopper, confirmPassword: shopper.password },
    });
    expect(signup.ok()).toBe(true);
    await waitForMail(shopper.email, /Confirm your Aurelia account/);
    await openAccountDialog(page, 'Log in');
    await logIn(page, shopper.email, shopper.password);
    const dialog = page.getByRole('dialog');
    await expect(dialog.locator('form').getByRole('alert')).toHaveText('Email not confirmed');
    await dialog.getByRole('button', { name: 'Send the confirmation e-mail again' }).click();
    await expect(dialog.locator('form').getByRole('status')).toHaveText(
      'If that address has an account waiting for confirmation, we have sent it a new link.',
    );
    // The newest mail carries a new link, which confirms with the password chosen at sign-up.
    await expect.poll(async () => (await readDevMailbox(mailbox)).filter((m) => m.to.includes(shopper.email)).length).toBe(2);
    const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
    await page.goto(mail.link);
    await hydrated(page, '.narrow-form');
    await page.getByLabel('Password').fill(shopper.password);
    await page.getByRole('button', { name: 'Confirm my account' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Olga');
  });

  test('a wrong password shows the error and signs nobody in', async ({ page }) => {
    await page.goto('/');
    await openAccountDialog(page, 'Log in');
    await logIn(page, 'nobody@example.com', 'wrong-password');
    // The form says it; the same words also come as a notification, shown on top of the open dialog.
    await expect(page.getByRole('dialog').locator('form').getByRole('alert')).toHaveText('Invalid login credentials');
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
  });

  test('forgotten password: e-mailed single-use link sets a new one', async ({ page }) => {
    const shopper = newShopper('Rosa');
    await signUpAndVerify(page, shopper);
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    const dialog = await openAccountDialog(page, 'Log in');
    await dialog.getByRole('button', { name: 'Forgot your password?' }).click();
    await dialog.getByLabel('Email').fill(shopper.email);
    await dialog.getByRole('button', { name: 'Send reset link' }).click();
    await expect(dialog.getByRole('status').filter({ hasText: 'If an account exists' })).toHaveText(
      'If an account exists for that address, we have sent a link to reset your password.',
    );

    const mail = await waitForMail(shopper.email, /Reset your Aurelia password/);
    await page.goto(mail.link);
    await hydrated(page, '.narrow-form');
    await page.getByLabel('New password', { exact: true }).fill('new-lavender-9');
    await page.getByLabel('Confirm new password').fill('new-lavender-9');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('main').getByRole('status')).toHaveText('Your password has been changed. Please log in.');

    await page.getByRole('button', { name: 'Log in' }).last().click();
    await expect(page.getByRole('dialog')).toBeVisible(); // its code loads on first use: wait, do not race it
    await logIn(page, shopper.email, 'new-lavender-9');
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Rosa');

    // The link was spent.
    await page.goto(mail.link);
    await hydrated(page, '.narrow-form');
    await page.getByLabel('New password', { exact: true }).fill('third-lavender-1');
    await page.getByLabel('Confirm new password').fill('third-lavender-1');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('alert')).toHaveText('This link is invalid or has expired. Please request a new one.');
  });

  test('a new password filled in before the form is live is the one sent, and the form cannot be sent before', async ({
    page,
    baseURL,
    signedIn,
  }) => {
    const asked = await page.request.post('/api/auth/reset-request', {
      headers: { origin: baseURL ?? '' },
      data: { email: signedIn.email },
    });
    expect(asked.ok()).toBe(true);
    const mail = await waitForMail(signedIn.email, /Reset your Aurelia password/);
    const release = await holdScripts(page);
    await page.goto(mail.link, { waitUntil: 'commit' });
    const send = page.getByRole('button', { name: 'Set new password' });
    await expect(send).toBeDisabled();
    await page.getByLabel('New password', { exact: true }).fill('early-lavender-4');
    await page.getByLabel('Confirm new password').fill('early-lavender-4');
    await page.getByLabel('Confirm new password').press('Enter');
    await expect(page).toHaveURL(mail.link);
    release();
    await expect(send).toBeEnabled();
    await send.click();
    await expect(page.getByRole('main').getByRole('status')).toHaveText('Your password has been changed. Please log in.');
    const login = await page.request.post('/api/auth/login', {
      headers: { origin: baseURL ?? '' },
      data: { email: signedIn.email, password: 'early-lavender-4' },
    });
    expect(login.ok()).toBe(true);
  });

  test('after 15 idle minutes the browser signs out and goes home', async ({ page }) => {
    const shopper = newShopper('Ines');
    await page.clock.install();
    await signUpAndVerify(page, shopper);
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Ines');
    await page.goto('/contact');
    await hydrated(page, '.account-button');
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Ines');

    await page.clock.runFor(14 * 60 * 1000);
    await expect(page).toHaveURL(/\/contact$/);
    await page.clock.runFor(60 * 1000 + 10_000);
    await expect(page).toHaveURL(/\/$/);
    await hydrated(page, '.account-button');
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    expect(await (await page.request.get('/api/auth/session')).json()).toEqual({ user: null });
  });

  test('the API refuses a cross-site request and bad input without changing anything', async ({ request, baseURL }) => {
    const origin = baseURL ?? '';
    const cross = await request.post('/api/auth/login', {
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      data: { email: 'a@example.com', password: 'x' },
    });
    expect(cross.status()).toBe(403);
    const notJson = await request.post('/api/auth/login', { headers: { origin, 'content-type': 'text/plain' }, data: 'hello' });
    expect(notJson.status()).toBe(415);
    const empty = await request.post('/api/auth/signup', { headers: { origin }, data: { email: 'a@example.com' } });
    expect(empty.status()).toBe(400);
    expect(await empty.json()).toEqual({ error: { code: 'invalid_request', message: 'Please fill in all fields.' } });
  });

  test('password guessing is slowed down: 429 with Retry-After after 5 wrong passwords for one e-mail', async ({
    request,
    baseURL,
  }) => {
    const email = newShopper('Guess').email;
    const attempt = () =>
      request.post('/api/auth/login', { headers: { origin: baseURL ?? '' }, data: { email, password: 'guess-guess' } });
    for (let i = 0; i < 5; i++) expect((await attempt()).status()).toBe(400);
    const limited = await attempt();
    expect(limited.status()).toBe(429);
    expect(Number(limited.headers()['retry-after'])).toBeGreaterThan(0);
    expect((await limited.json()).error.message).toBe('Too many attempts. Please wait a moment and try again.');
  });
});
