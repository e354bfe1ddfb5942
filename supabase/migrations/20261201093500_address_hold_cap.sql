-- What one client address can hold at once, guests and accounts alike (decision 007, issue 40). The hold cap counted
-- a guest by their client address but a signed-in shopper only by their account, so one address could hold an item's
-- whole stock: guest checkouts up to the address's cap, then one account after another, 5 each. Now every checkout
-- keeps its client address's hash (`checkouts.client_key`, accounts' too), and a hold is refused when the line and
-- what every other live checkout from the same address holds of the item come to more than `p_address_cap`
-- (HOLD_CAP times ADDRESS_LIMIT_FACTOR), on top of the shopper's own cap (`p_cap`: an account's, or a guest's).
--
-- Race-safe as the shopper's cap is: the sums are read in a statement of their own after lock_stock has locked the
-- items' count rows, and every hold of an item takes that lock first, so two checkouts from one address (guests or
-- accounts) queue, and the second sees the first's hold.

-- As before, and each counted line of the answer also says what the other live checkouts from the checkout's client
-- address hold of its item (`heldAtAddress`, when the checkout has one). Nothing is held when a line's wanted and held
-- elsewhere pass `p_cap`, or its wanted and held at the address pass `p_address_cap` (null: `p_cap`).
drop function app_private.open_checkout(jsonb, jsonb, timestamptz, integer);
drop function app_private.hold_stock(uuid, jsonb, timestamptz, integer);
create function app_private.hold_stock(p_checkout uuid, p_lines jsonb, p_until timestamptz, p_cap integer,
  p_address_cap integer default null) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb := app_private.lock_stock(p_checkout, p_lines);
  v_user uuid;
  v_client text;
  v_address_cap integer := coalesce(p_address_cap, p_cap);
begin
  if app_private.stock_short(v_counted) then
    return v_counted;
  end if;
  if v_counted = '[]'::jsonb then
    -- Nothing counted: nothing to hold, and no cap to check (the same work as before for an uncounted cart).
    delete from public.stock_holds h where h.checkout_id = p_checkout;
    return v_counted;
  end if;
  select c.user_id, c.client_key into v_user, v_client from public.checkouts c where c.id = p_checkout;
  select coalesce(jsonb_agg(e || jsonb_build_object(
      'heldElsewhere', coalesce((
        select sum(h.quantity)::integer
          from public.stock_holds h join public.checkouts c on c.id = h.checkout_id
         where h.product_id = (e ->> 'productId')::int and h.color = e ->> 'color' and h.size = e ->> 'size'
           and h.expires_at > now() and h.checkout_id <> p_checkout
           and case when v_user is not null then c.user_id = v_user
                    else c.user_id is null and c.client_key = v_client end
      ), 0),
      'heldAtAddress', case when v_client is null then null else coalesce((
        select sum(h.quantity)::integer
          from public.stock_holds h join public.checkouts c on c.id = h.checkout_id
         where h.product_id = (e ->> 'productId')::int and h.color = e ->> 'color' and h.size = e ->> 'size'
           and h.expires_at > now() and h.checkout_id <> p_checkout
           and c.client_key = v_client
      ), 0) end
    ) order by (e ->> 'productId')::int, e ->> 'color', e ->> 'size'), '[]'::jsonb)
    into v_counted
    from jsonb_array_elements(v_counted) e;
  if exists (select 1 from jsonb_array_elements(v_counted) e
              where (e ->> 'wanted')::int + (e ->> 'heldElsewhere')::int > p_cap
                 or (e ->> 'wanted')::int + coalesce((e ->> 'heldAtAddress')::int, 0) > v_address_cap) then
    return v_counted;
  end if;
  delete from public.stock_holds h where h.checkout_id = p_checkout;
  insert into public.stock_holds (checkout_id, product_id, color, size, quantity, expires_at)
    select p_checkout, (e ->> 'productId')::int, e ->> 'color', e ->> 'size', (e ->> 'wanted')::int, p_until
    from jsonb_array_elements(v_counted) e;
  return v_counted;
end;
$$;

-- A new checkout, stored and held in one statement, as before, now with the address's cap.
create function app_private.open_checkout(p_checkout jsonb, p_lines jsonb, p_until timestamptz, p_cap integer,
  p_address_cap integer default null) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_id uuid;
  v_counted jsonb;
begin
  insert into public.checkouts (user_id, lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
      total_cents, content_hash, client_key)
    select r.user_id, r.lines, r.address, r.rate, r.parcel_weight_lb, r.subtotal_cents, r.shipping_cents, r.tax_cents,
           r.total_cents, r.content_hash, r.client_key
      from jsonb_populate_record(null::public.checkouts, p_checkout) r
    returning id into v_id;
  v_counted := app_private.hold_stock(v_id, p_lines, p_until, p_cap, p_address_cap);
  if not exists (select 1 from public.stock_holds h where h.checkout_id = v_id)
     and exists (select 1 from jsonb_array_elements(v_counted)) then
    -- Counted lines, and nothing held: short of stock or past a cap. The checkout is not kept.
    delete from public.checkouts c where c.id = v_id;
  end if;
  return jsonb_build_object('id', v_id, 'counted', v_counted);
end;
$$;

revoke all on function app_private.hold_stock(uuid, jsonb, timestamptz, integer, integer),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer, integer) from public, anon, authenticated;
grant execute on function app_private.hold_stock(uuid, jsonb, timestamptz, integer, integer),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer, integer) to service_role;
