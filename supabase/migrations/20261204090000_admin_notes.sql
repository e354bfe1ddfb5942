-- Customers in the admin, and the admin's private notes on an order and on a customer (issue 43, part 4; decision 010).
--
-- A note is the shop's own: never shown to the shopper, in any page, answer, e-mail or CSV of theirs. Both tables are
-- server-only (RLS on, no policy, nothing granted to anon or authenticated): admins write and read them through named
-- server paths as service_role, and each note is recorded in admin_actions in the same transaction.

create table public.order_notes (
  id bigint generated always as identity primary key,
  order_id uuid not null references public.orders (id) on delete cascade,
  body text not null check (length(btrim(body)) between 1 and 2000),
  -- The account may go; the note stays, with the address its author had.
  admin_id uuid references auth.users (id) on delete set null,
  admin_email text not null,
  created_at timestamptz not null default now()
);
create index order_notes_order on public.order_notes (order_id, id);
alter table public.order_notes enable row level security;

-- A customer is an account, or, for guest orders no verified account's e-mail matches, an e-mail (lower case): a note
-- is on one or the other. A guest's notes follow them once a verified account has their e-mail (read by that e-mail).
create table public.customer_notes (
  id bigint generated always as identity primary key,
  user_id uuid references auth.users (id) on delete cascade,
  email text check (email = lower(email) and length(email) between 3 and 254),
  body text not null check (length(btrim(body)) between 1 and 2000),
  admin_id uuid references auth.users (id) on delete set null,
  admin_email text not null,
  created_at timestamptz not null default now(),
  constraint customer_notes_one_customer check ((user_id is null) <> (email is null))
);
create index customer_notes_account on public.customer_notes (user_id, id) where user_id is not null;
create index customer_notes_guest on public.customer_notes (email, id) where email is not null;
alter table public.customer_notes enable row level security;

revoke all on public.order_notes, public.customer_notes from anon, authenticated;
grant select, insert, update, delete on public.order_notes, public.customer_notes to service_role;
grant usage, select on all sequences in schema public to service_role;

-- A customer's page finds guest orders and contact messages by e-mail, in any case.
create index orders_guest_email on public.orders (lower(customer_email)) where user_id is null;
create index contact_messages_email on public.contact_messages (lower(email));
