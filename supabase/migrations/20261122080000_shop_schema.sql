-- The shop's tables. Row-level security is the guard on every one of them: the server runs a shopper's queries as
-- `anon` or `authenticated` with the shopper's JWT claims set, exactly like Supabase's table API, so a bug in an
-- endpoint cannot reach another shopper's rows. `service_role` (BYPASSRLS) is used only by named server paths.
-- Money is integer cents. Product ids refer to the static catalogue (content/products), not to a table.

-- Start from nothing: Supabase grants everything on new public tables to anon and authenticated by default.
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;
-- Functions: PostgreSQL lets PUBLIC execute every new function unless the default is revoked database-wide.
alter default privileges revoke execute on functions from public;
alter default privileges in schema public revoke all on functions from anon, authenticated;

-- Carts ---------------------------------------------------------------------------------------------------------
create table public.user_carts (
  user_id uuid not null references auth.users (id) on delete cascade,
  cart_id text not null check (cart_id ~ '^[0-9]+(-[a-z0-9-]+)?(-(XS|S|M|L|XL|XXL))?$'),
  product_id integer not null check (product_id > 0),
  quantity integer not null check (quantity > 0 and quantity <= 99),
  selected_color text check (selected_color ~ '^[a-z0-9-]+$'),
  selected_size text check (selected_size in ('XS', 'S', 'M', 'L', 'XL', 'XXL')),
  updated_at timestamptz not null default now(),
  primary key (user_id, cart_id)
);
alter table public.user_carts enable row level security;
create policy "carts: own rows" on public.user_carts for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
grant select, insert, update, delete on public.user_carts to authenticated;

-- Favorites -----------------------------------------------------------------------------------------------------
create table public.user_favorites (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  product_id integer not null check (product_id > 0),
  product_name text not null,
  product_image text not null,
  product_price_cents integer not null check (product_price_cents >= 0),
  product_category text not null,
  created_at timestamptz not null default now(),
  unique (user_id, product_id)
);
alter table public.user_favorites enable row level security;
create policy "favorites: own rows" on public.user_favorites for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
grant select, insert, delete on public.user_favorites to authenticated;

-- Likes ---------------------------------------------------------------------------------------------------------
create table public.product_likes (
  product_id integer not null check (product_id > 0),
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (product_id, user_id)
);
alter table public.product_likes enable row level security;
create policy "likes: own rows" on public.product_likes for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
grant select, insert, delete on public.product_likes to authenticated;

-- Everyone may count likes without seeing who liked.
create function public.product_like_count(p_product_id integer) returns integer
language sql stable security definer set search_path = ''
as $$ select count(*)::integer from public.product_likes where product_id = p_product_id $$;
grant execute on function public.product_like_count(integer) to anon, authenticated, service_role;

-- Reviews -------------------------------------------------------------------------------------------------------
create table public.product_reviews (
  id uuid primary key default gen_random_uuid(),
  product_id integer not null check (product_id > 0),
  user_id uuid references auth.users (id) on delete set null,
  author text not null default 'Anonymous',
  rating smallint not null default 5 check (rating between 1 and 5),
  comment text not null check (length(btrim(comment)) between 1 and 2000),
  is_approved boolean not null default false,
  verified boolean not null default false,
  created_at timestamptz not null default now()
);
create index product_reviews_product on public.product_reviews (product_id, created_at desc);
alter table public.product_reviews enable row level security;
create policy "reviews: approved ones, and my own" on public.product_reviews for select to anon, authenticated
  using (is_approved or user_id = (select auth.uid()));
create policy "reviews: write as myself, unapproved" on public.product_reviews for insert to authenticated
  with check (user_id = (select auth.uid()) and not is_approved);
grant select on public.product_reviews to anon, authenticated;
grant insert (product_id, user_id, rating, comment) on public.product_reviews to authenticated;

-- The author and the verified flag come from the database, never from the shopper. The function runs with the
-- shopper's own rights, so the order lookup below sees only the shopper's own orders (RLS).
create function public.product_reviews_fill() returns trigger
language plpgsql set search_path = ''
as $$
declare
  email text := (select auth.jwt()) ->> 'email';
  local text := split_part(email, '@', 1);
begin
  if current_user in ('anon', 'authenticated') then
    new.is_approved := false;
    -- Only the masked address is stored ('maya.t@example.com' -> 'ma***@example.com', the rule of maskEmail in
    -- catalog.ts), so no query with the public key can read a reviewer's e-mail.
    new.author := case
      when email is null or position('@' in email) < 2 then 'Anonymous'
      else left(local, greatest(1, least(2, length(local) - 1))) || '***@' || split_part(email, '@', 2)
    end;
    new.verified := exists (
      select 1 from public.order_items i join public.orders o on o.id = i.order_id
      where o.user_id = (select auth.uid()) and i.product_id = new.product_id
    );
  end if;
  return new;
end
$$;

-- Orders (written only by the server, as service_role, after a verified payment) --------------------------------
create table public.orders (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  customer_email text not null,
  customer_name text not null,
  subtotal_cents integer not null check (subtotal_cents >= 0),
  shipping_cents integer not null check (shipping_cents >= 0),
  tax_cents integer not null check (tax_cents >= 0),
  total_cents integer not null check (total_cents = subtotal_cents + shipping_cents + tax_cents),
  payment_intent_id text not null unique,
  shipping_address jsonb not null,
  shipping_method jsonb not null,
  status text not null default 'processing'
    check (status in ('processing', 'pending', 'shipped', 'shipping', 'delivered', 'completed', 'cancelled', 'canceled')),
  created_at timestamptz not null default now(),
  estimated_delivery date,
  tracking_number text,
  tracking_url text,
  label_url text
);
create index orders_user on public.orders (user_id, created_at desc);
alter table public.orders enable row level security;
create policy "orders: my own" on public.orders for select to authenticated using (user_id = (select auth.uid()));
grant select on public.orders to authenticated;

create table public.order_items (
  id bigint generated always as identity primary key,
  order_id uuid not null references public.orders (id) on delete cascade,
  product_id integer not null check (product_id > 0),
  product_name text not null,
  product_category text not null,
  price_cents integer not null check (price_cents >= 0),
  quantity integer not null check (quantity > 0),
  selected_color text,
  selected_size text,
  product_sku text not null,
  image text not null
);
create index order_items_order on public.order_items (order_id);
alter table public.order_items enable row level security;
create policy "order items: of my own orders" on public.order_items for select to authenticated
  using (exists (select 1 from public.orders o where o.id = order_id and o.user_id = (select auth.uid())));
grant select on public.order_items to authenticated;

create trigger product_reviews_fill before insert on public.product_reviews
  for each row execute function public.product_reviews_fill();

-- Contact messages: anyone may send one; nobody but the shop reads them --------------------------------------------
create table public.contact_messages (
  id bigint generated always as identity primary key,
  name text not null check (length(btrim(name)) between 1 and 200),
  email text not null check (email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' and length(email) <= 254),
  message text not null check (length(btrim(message)) between 1 and 5000),
  created_at timestamptz not null default now()
);
alter table public.contact_messages enable row level security;
create policy "contact: anyone may write" on public.contact_messages for insert to anon, authenticated with check (true);
grant insert (name, email, message) on public.contact_messages to anon, authenticated;

-- Newsletter: a shopper subscribes themselves, with their account's e-mail ----------------------------------------
create table public.newsletter_subscribers (
  user_id uuid primary key references auth.users (id) on delete cascade,
  email text not null,
  subscribed_at timestamptz not null default now()
);
alter table public.newsletter_subscribers enable row level security;
create policy "newsletter: my own subscription" on public.newsletter_subscribers for select to authenticated
  using (user_id = (select auth.uid()));
create policy "newsletter: subscribe myself with my account e-mail" on public.newsletter_subscribers for insert to authenticated
  with check (user_id = (select auth.uid()) and lower(email) = lower((select auth.jwt()) ->> 'email'));
create policy "newsletter: unsubscribe myself" on public.newsletter_subscribers for delete to authenticated
  using (user_id = (select auth.uid()));
grant select, insert, delete on public.newsletter_subscribers to authenticated;

-- Server-only tables: RLS on and no policy, so only service_role (BYPASSRLS) reaches them --------------------------

-- Durable work (e-mails, shipping labels), retried with backoff until done.
create table public.outbox (
  id bigint generated always as identity primary key,
  kind text not null,
  payload jsonb not null,
  dedupe_key text unique,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until timestamptz,
  last_error text,
  done_at timestamptz,
  created_at timestamptz not null default now()
);
create index outbox_due on public.outbox (next_attempt_at) where done_at is null;
alter table public.outbox enable row level security;

create table public.processed_webhook_events (
  event_id text primary key,
  processed_at timestamptz not null default now()
);
alter table public.processed_webhook_events enable row level security;

-- Fixed-window counters shared by every server process.
create table public.rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (bucket, window_start)
);
alter table public.rate_limits enable row level security;

-- Built-in accounts (the embedded default): sessions and one-time tokens, stored as SHA-256 hashes.
create table public.auth_sessions (
  token_hash text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index auth_sessions_user on public.auth_sessions (user_id);
alter table public.auth_sessions enable row level security;

create table public.auth_tokens (
  token_hash text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  purpose text not null check (purpose in ('verify_email', 'reset_password')),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
alter table public.auth_tokens enable row level security;

-- Last activity of every session (built-in or Supabase), so idle sign-out after 15 minutes is the server's decision.
create table public.session_activity (
  session_key text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  last_seen_at timestamptz not null default now()
);
alter table public.session_activity enable row level security;

grant select, insert, update, delete on all tables in schema public to service_role;
grant usage, select on all sequences in schema public to service_role;
