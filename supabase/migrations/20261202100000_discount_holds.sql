-- A code's use held as its checkout's payment opens, in the same statement as the checkout's stock (decision 009), used
-- once its order is recorded, released when its payment fails. Every write of a use takes the code's row lock first
-- and counts the other uses in a statement of its own after it (READ COMMITTED: a new snapshot per statement of a
-- VOLATILE function, so it sees the uses committed by whoever held the lock before), so held and used uses never pass
-- the code's limit, nor one customer's, whatever the number of checkouts or servers. Locks are taken in one order:
-- the counts' rows (stock) before the code's row.

-- The account's e-mail too (normalised), for a signed-in shopper: a later guest checkout with that address, or a
-- signed-in one whose contact e-mail differs, is the same customer.
alter table public.discount_redemptions
  add column account_email_normalised text check (length(account_email_normalised) between 3 and 320);
create index discount_redemptions_account_email on public.discount_redemptions (code_id, account_email_normalised)
  where account_email_normalised is not null;

-- The uses of a code that count against its limits, other than `p_checkout`'s: used, or held and not lapsed. `p_user`
-- and `p_emails` say whose (null and '{}': everyone's).
create function app_private.discount_uses(p_code uuid, p_checkout uuid, p_user uuid, p_emails text[]) returns integer
language sql stable set search_path = ''
as $$
  select count(*)::integer from public.discount_redemptions r
   where r.code_id = p_code and r.checkout_id is distinct from p_checkout
     and (r.state = 'used' or (r.state = 'held' and r.expires_at > now()))
     and (p_user is null and cardinality(p_emails) = 0
          or r.user_id = p_user
          or r.email_normalised = any (p_emails)
          or r.account_email_normalised = any (p_emails))
$$;

-- Holds one use of a code for a checkout until `p_until`, replacing the use it held (another code, or the same one
-- again), when the code is active, within its dates, and neither its limit nor the customer's is reached; otherwise
-- changes nothing. `p_discount` is {code, userId, email, accountEmail, amountCents} (e-mails normalised). Returns
-- {held: true} or {held: false, reason: 'unknown' | 'ended' | 'paused' | 'not_started' | 'expired' | 'used_up' |
-- 'customer_limit'}.
create function app_private.hold_discount(p_checkout uuid, p_discount jsonb, p_until timestamptz) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_code public.discount_codes;
  v_user uuid := nullif(p_discount ->> 'userId', '')::uuid;
  v_emails text[] := array_remove(array[p_discount ->> 'email', p_discount ->> 'accountEmail'], null);
begin
  select * into v_code from public.discount_codes c where c.code = p_discount ->> 'code' for update;
  if not found then return jsonb_build_object('held', false, 'reason', 'unknown'); end if;
  if v_code.status = 'ended' then return jsonb_build_object('held', false, 'reason', 'ended'); end if;
  if v_code.ends_at is not null and now() >= v_code.ends_at then
    return jsonb_build_object('held', false, 'reason', 'expired');
  end if;
  if v_code.status = 'paused' then return jsonb_build_object('held', false, 'reason', 'paused'); end if;
  if v_code.starts_at is not null and now() < v_code.starts_at then
    return jsonb_build_object('held', false, 'reason', 'not_started');
  end if;
  -- Counted in statements of their own, after the lock.
  if v_code.usage_limit is not null
     and app_private.discount_uses(v_code.id, p_checkout, null, '{}') >= v_code.usage_limit then
    return jsonb_build_object('held', false, 'reason', 'used_up');
  end if;
  if v_code.per_customer_limit is not null
     and app_private.discount_uses(v_code.id, p_checkout, v_user, v_emails) >= v_code.per_customer_limit then
    return jsonb_build_object('held', false, 'reason', 'customer_limit');
  end if;
  insert into public.discount_redemptions as r (code_id, checkout_id, user_id, email_normalised, account_email_normalised,
      amount_cents, expires_at)
    values (v_code.id, p_checkout, v_user, p_discount ->> 'email', p_discount ->> 'accountEmail',
      (p_discount ->> 'amountCents')::integer, p_until)
    on conflict (checkout_id) do update
      set code_id = excluded.code_id, user_id = excluded.user_id, email_normalised = excluded.email_normalised,
          account_email_normalised = excluded.account_email_normalised, amount_cents = excluded.amount_cents,
          state = 'held', held_at = now(), expires_at = excluded.expires_at, released_at = null
      where r.state <> 'used';
  return jsonb_build_object('held', true);
end;
$$;

-- A new checkout, stored and held in one statement: its counted items as before, then, when they are held (or none is
-- counted) and it has a code, one use of the code. When either cannot be held the checkout is not kept. Returns {id,
-- counted, discount: hold_discount's answer or null}.
drop function app_private.open_checkout(jsonb, jsonb, timestamptz, integer, integer);
create function app_private.open_checkout(p_checkout jsonb, p_lines jsonb, p_until timestamptz, p_cap integer,
  p_address_cap integer default null, p_discount jsonb default null) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_id uuid;
  v_counted jsonb;
  v_discount jsonb;
begin
  insert into public.checkouts (user_id, lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
      total_cents, content_hash, client_key, discount_code, discount_cents, offer_cents, shipping_discount_cents)
    select r.user_id, r.lines, r.address, r.rate, r.parcel_weight_lb, r.subtotal_cents, r.shipping_cents, r.tax_cents,
           r.total_cents, r.content_hash, r.client_key, r.discount_code, coalesce(r.discount_cents, 0),
           coalesce(r.offer_cents, 0), coalesce(r.shipping_discount_cents, 0)
      from jsonb_populate_record(null::public.checkouts, p_checkout) r
    returning id into v_id;
  v_counted := app_private.hold_stock(v_id, p_lines, p_until, p_cap, p_address_cap);
  if not exists (select 1 from public.stock_holds h where h.checkout_id = v_id)
     and exists (select 1 from jsonb_array_elements(v_counted)) then
    -- Counted lines, and nothing held: short of stock or past a cap. The checkout is not kept.
    delete from public.checkouts c where c.id = v_id;
  elsif p_discount is not null then
    v_discount := app_private.hold_discount(v_id, p_discount, p_until);
    if not (v_discount ->> 'held')::boolean then
      delete from public.checkouts c where c.id = v_id;
    end if;
  end if;
  return jsonb_build_object('id', v_id, 'counted', v_counted, 'discount', v_discount);
end;
$$;

-- An open checkout held again (its cart changed, or the shopper pays again): its stock as hold_stock does, then its
-- code's use (p_discount), or, with no code now, the use it held is released. All or nothing: when the code's use
-- cannot be held, the stock holds stay as they were. Returns {counted, discount}.
create function app_private.hold_checkout(p_checkout uuid, p_lines jsonb, p_until timestamptz, p_cap integer,
  p_address_cap integer default null, p_discount jsonb default null) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb;
  v_discount jsonb;
begin
  begin
    v_counted := app_private.hold_stock(p_checkout, p_lines, p_until, p_cap, p_address_cap);
    -- Held when nothing is counted, or when this transaction wrote the checkout's holds (held_at is its start).
    if v_counted = '[]'::jsonb
       or exists (select 1 from public.stock_holds h where h.checkout_id = p_checkout and h.held_at = now()) then
      if p_discount is null then
        update public.discount_redemptions r set state = 'released', released_at = now()
         where r.checkout_id = p_checkout and r.state = 'held';
      else
        v_discount := app_private.hold_discount(p_checkout, p_discount, p_until);
        if not (v_discount ->> 'held')::boolean then
          raise exception 'discount not held';
        end if;
      end if;
    end if;
  exception when raise_exception then
    -- Back to the stock holds the checkout had; v_discount keeps the reason.
    null;
  end;
  return jsonb_build_object('counted', v_counted, 'discount', v_discount);
end;
$$;

-- The use of a paid checkout's code becomes used, once, before its order is written: a statement of its own that
-- takes the checkout's row lock first, as recording the order does. A live hold is simply used; one that lapsed or
-- was released is used only when the code's limits still have room (under the code's lock): a payment that outlived
-- its hold never takes a use past a limit. The code's status and dates are not asked again: the shopper was charged
-- for the discount while it held. Returns {state: 'none' (no code) | 'recorded' (its order exists) | 'used' |
-- 'refused', reason?}.
create function app_private.use_discount(p_checkout uuid) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_use public.discount_redemptions;
  v_code public.discount_codes;
  v_checkout public.checkouts;
begin
  select * into v_checkout from public.checkouts c where c.id = p_checkout for update;
  if v_checkout.order_id is not null then return jsonb_build_object('state', 'recorded'); end if;
  -- No code (or the shopper took it off: its use was released and stays so).
  if v_checkout.discount_code is null then return jsonb_build_object('state', 'none'); end if;
  select * into v_use from public.discount_redemptions r where r.checkout_id = p_checkout;
  if not found then return jsonb_build_object('state', 'refused', 'reason', 'used_up'); end if;
  if v_use.state = 'used' then return jsonb_build_object('state', 'used'); end if;
  if not (v_use.state = 'held' and v_use.expires_at > now()) then
    select * into v_code from public.discount_codes c where c.id = v_use.code_id for update;
    if v_code.usage_limit is not null
       and app_private.discount_uses(v_code.id, p_checkout, null, '{}') >= v_code.usage_limit then
      return jsonb_build_object('state', 'refused', 'reason', 'used_up');
    end if;
    if v_code.per_customer_limit is not null
       and app_private.discount_uses(v_code.id, p_checkout, v_use.user_id,
             array_remove(array[v_use.email_normalised, v_use.account_email_normalised], null))
           >= v_code.per_customer_limit then
      return jsonb_build_object('state', 'refused', 'reason', 'customer_limit');
    end if;
  end if;
  update public.discount_redemptions r set state = 'used', used_at = now(), released_at = null
   where r.checkout_id = p_checkout;
  return jsonb_build_object('state', 'used');
end;
$$;

revoke all on function app_private.discount_uses(uuid, uuid, uuid, text[]),
  app_private.hold_discount(uuid, jsonb, timestamptz),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer, integer, jsonb),
  app_private.hold_checkout(uuid, jsonb, timestamptz, integer, integer, jsonb),
  app_private.use_discount(uuid) from public, anon, authenticated;
grant execute on function app_private.discount_uses(uuid, uuid, uuid, text[]),
  app_private.hold_discount(uuid, jsonb, timestamptz),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer, integer, jsonb),
  app_private.hold_checkout(uuid, jsonb, timestamptz, integer, integer, jsonb),
  app_private.use_discount(uuid) to service_role;
