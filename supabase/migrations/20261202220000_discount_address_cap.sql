-- What one client address may hold of a limited code at once (decision 009). A use is held for 15 minutes as a
-- payment opens, so one client opening checkout after checkout, each with another e-mail, could hold every use of a
-- code limited to 10 and keep it from everyone, again every quarter of an hour, as stock once could be (decision 007's
-- hold cap). Now the live held uses of a limited code from the checkout's client address (checkouts.client_key, a
-- hash) are capped at `addressCap` of p_discount (HOLD_CAP × ADDRESS_LIMIT_FACTOR, as a client address's stock
-- holds are); a used one no longer counts against it. Counted under the code's row lock, as its other limits are.
create or replace function app_private.hold_discount(p_checkout uuid, p_discount jsonb, p_until timestamptz) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_code public.discount_codes;
  v_user uuid := nullif(p_discount ->> 'userId', '')::uuid;
  v_emails text[] := array_remove(array[p_discount ->> 'email', p_discount ->> 'accountEmail'], null);
  v_address_cap integer := (p_discount ->> 'addressCap')::integer;
begin
  select * into v_code from public.discount_codes c where c.code = p_discount ->> 'code';
  if not found then return jsonb_build_object('held', false, 'reason', 'unknown'); end if;
  if v_code.usage_limit is not null or v_code.per_customer_limit is not null then
    -- Limited: every hold of the code queues on its row, and counts (below, in statements of their own) what those
    -- before it held. The row is read again as the lock found it.
    select * into v_code from public.discount_codes c where c.id = v_code.id for update;
  end if;
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
  if v_code.usage_limit is not null and v_address_cap is not null
     and (select count(*) from public.discount_redemptions r join public.checkouts c on c.id = r.checkout_id
           where r.code_id = v_code.id and r.checkout_id <> p_checkout and r.state = 'held' and r.expires_at > now()
             and c.client_key = (select o.client_key from public.checkouts o where o.id = p_checkout))
         >= v_address_cap then
    return jsonb_build_object('held', false, 'reason', 'address_limit');
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
