import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { hydrated } from './islands';

const mailbox = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;

export interface TestShopper {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
}

/** A shopper no other test uses. */
export function newShopper(firstName = 'Maya'): TestShopper {
  return {
    firstName,
    lastName: 'Thompson',
    // A first name may hold spaces or hyphens; the e-mail's local part keeps only its letters and digits.
    email: `${firstName.toLowerCase().replace(/[^a-z0-9]/g, '') || 'shopper'}.${randomBytes(4).toString('hex')}@example.com`,
    password: 'lavender-fields-7',
  };
}

/** Waits for the newest e-mail to `to` whose subject matches, and returns it with the link it carries. */
export async function waitForMail(to: string, subject: RegExp) {
  let found: { subject: string; text: string } | undefined;
  await expect
    .poll(
      async () => {
        const mails = (await readDevMailbox(mailbox)).filter((m) => m.to.includes(to) && subject.test(m.subject));
        found = mails.at(-1);
        return Boolean(found);
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  const mail = found ?? { subject: '', text: '' };
  const link = /https?:\/\/\S+token=[\w-]+/.exec(mail.text)?.[0] ?? '';
  return { ...mail, link: new URL(link).pathname + new URL(link).search };
}

/** Opens the account dialog from the header. */
export async function openAccountDialog(page: Page, pane: 'Log in' | 'Sign up') {
  await hydrated(page, '.account-button');
  await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  if (pane === 'Sign up') await dialog.getByRole('button', { name: 'Sign up', exact: true }).click();
  return dialog;
}

/** Signs up through the dialog and follows the verification link from the dev mailbox, which signs the shopper in. */
export async function signUpAndVerify(page: Page, shopper: TestShopper) {
  await page.goto('/about');
  const dialog = await openAccountDialog(page, 'Sign up');
  await dialog.getByLabel('First name').fill(shopper.firstName);
  await dialog.getByLabel('Last name').fill(shopper.lastName);
  await dialog.getByLabel('Email').fill(shopper.email);
  await dialog.getByLabel('Password', { exact: true }).fill(shopper.password);
  await dialog.getByLabel('Confirm password').fill(shopper.password);
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Account created! Please check your email to verify your account.')).toBeVisible();
  const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
  await page.goto(mail.link);
  // The link asks for the password chosen at sign-up, then signs the shopper in.
  await hydrated(page, '.narrow-form');
  await page.getByLabel('Password').fill(shopper.password);
  await page.getByRole('button', { name: 'Confirm my account' }).click();
  await expect(page.getByRole('main').getByRole('status')).toHaveText('Your email is verified. Welcome to Aurelia!');
  await expect(page.getByTestId('online-indicator')).toHaveText(`Online: ${shopper.firstName}`);
}

/** Logs in through the dialog (opening it if needed). */
export async function logIn(page: Page, email: string, password: string) {
  const dialog = page.getByRole('dialog');
  if (!(await dialog.isVisible())) await openAccountDialog(page, 'Log in');
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Log in', exact: true }).last().click();
}
