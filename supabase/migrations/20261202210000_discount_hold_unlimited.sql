-- A code without limits is held without its row lock (decision 009). Every hold of a code queued on the code's row
-- until its checkout committed, so the checkouts of a popular code waited for one another even when there was nothing
-- to count: bench:api measured order placement with a code at 1.10-1.13 × the median without. Only a code with a limit
-- in all or per customer needs the queue; the others are checked (status, dates) on the row as read. A limit the owner
-- sets on a code while checkouts hold it counts those holds from then on.

create or replace function app_private.hold_discount(p_checkout uuid, p_discount jsonb, p_until timestamptz) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_code public.discount_codes;
  v_user uuid := nullif(p_discount ->> 'userId', '')::uuid;
  v_emails text[] := array_remove(array[p_discount ->> 'email', p_discount ->> 'accountEmail'], null);
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
