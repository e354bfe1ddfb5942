-- The test processor (the payments port's embedded default) keeps its intents and refunds here, shaped like Stripe's,
-- so that a fresh machine can take card payments with Stripe's test card numbers and no keys.
-- Server-only: RLS on and no policy or grant for anon/authenticated, so a client secret or an amount can never be
-- read or changed through the table API; only service_role (the payments adapter) reaches them.

create table public.test_payment_intents (
  id text primary key check (id ~ '^pi_test_[A-Za-z0-9]+$'),
  client_secret text not null unique,
  amount_cents integer not null check (amount_cents > 0),
  currency text not null default 'usd' check (currency = 'usd'),
  status text not null default 'requires_payment_method'
    check (status in ('requires_payment_method', 'requires_action', 'processing', 'succeeded', 'canceled')),
  metadata jsonb not null default '{}'::jsonb check (jsonb_typeof(metadata) = 'object'),
  last_error text,
  -- Unique: a retried create with the same key finds the intent it made the first time.
  idempotency_key text not null unique,
  created_at timestamptz not null default now(),
  -- Set once, when the card is charged: a second confirmation must not charge again.
  succeeded_at timestamptz,
  check ((status = 'succeeded') = (succeeded_at is not null))
);
alter table public.test_payment_intents enable row level security;

create table public.test_refunds (
  id text primary key check (id ~ '^re_test_[A-Za-z0-9]+$'),
  -- Intents are never deleted by the app; cascade only so that clearing test data needs no ordering.
  intent_id text not null references public.test_payment_intents (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  -- What the caller asked for (null: "all that is left"), to tell a retried request from a reused key.
  requested_cents integer check (requested_cents > 0),
  status text not null default 'succeeded' check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  idempotency_key text not null unique,
  created_at timestamptz not null default now()
);
create index test_refunds_intent on public.test_refunds (intent_id);
alter table public.test_refunds enable row level security;

revoke all on public.test_payment_intents, public.test_refunds from anon, authenticated;
grant select, insert, update, delete on public.test_payment_intents, public.test_refunds to service_role;
