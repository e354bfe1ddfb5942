-- Account pre-hijacking: each sign-up's own password hash and names travel with its verification link and are
-- written to auth.users only when that link is used, so whoever reads the mailbox decides which sign-up is in charge.
-- Both are cleared once the link is spent or retired: a hash no longer needed is not kept.
alter table public.auth_tokens
  add column password_hash text,
  add column user_meta jsonb,
  add constraint auth_tokens_signup_only check ((password_hash is null and user_meta is null) or purpose = 'verify_email');
