import { z } from 'astro/zod';
import { AUTH_MESSAGES, signUpProblem } from '@/lib/auth.rules';
import { isEmail, MAX_EMAIL_LENGTH } from '@/lib/email';

const field = (max: number) => z.string({ error: AUTH_MESSAGES.fillAll }).max(max, { error: 'That value is too long.' });

export const signUpBody = z
  .object({
    firstName: field(100),
    lastName: field(100),
    email: field(MAX_EMAIL_LENGTH),
    password: field(200),
    confirmPassword: field(200),
  })
  .superRefine((f, ctx) => {
    const problem = signUpProblem(f);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const loginBody = z
  .object({ email: field(254), password: field(200) })
  .refine((f) => f.email.trim() !== '' && f.password !== '', {
    error: AUTH_MESSAGES.loginRequired,
  });

export const resetRequestBody = z.object({
  email: z.string({ error: AUTH_MESSAGES.invalidEmail }).trim().refine(isEmail, { error: AUTH_MESSAGES.invalidEmail }),
});

export const resetBody = z
  .object({ token: z.string().min(1).max(200), password: field(200), confirmPassword: field(200) })
  .refine((f) => f.password === f.confirmPassword, { error: AUTH_MESSAGES.passwordsDiffer });

export const verifyBody = z
  .object({ token: z.string().min(1).max(200), password: field(200) })
  .refine((f) => f.password !== '', { error: 'Please enter your password.' });
