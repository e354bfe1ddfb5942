-- A cap on what one shopper can hold at once (decision 007). A checkout holds its counted items for 15 minutes, and
-- each new checkout held more: one client could open checkout after checkout and keep the last items from everyone
-- for a quarter of an hour. Now the units of an item one shopper holds across their live checkouts are capped: a
-- signed-in shopper is their account; a guest is their client address, as the shop's per-address limits know a guest
-- (kept as a hash: it is only ever compared).

alter table public.checkouts add column client_key text;
create index checkouts_client_key on public.checkouts (client_key) where client_key is not null and order_id is null;
create index checkouts_user_open on public.checkouts (user_id) where user_id is not null and order_id is null;

-- As before (lock the counts, read the other checkouts' live holds, hold only when every line fits), then, still under
-- the counts' locks, in a statement of its own: what the same shopper holds of each line's item in their other live
-- checkouts. Each counted line of the answer says it (`heldElsewhere`); when a line's wanted and held elsewhere come
-- to more than `p_cap`, nothing is held. Any hold of the item takes its count's lock first, so two checkouts of one
-- shopper cannot both pass the cap.
drop function app_private.hold_stock(uuid, jsonb, timestamptz);
create function app_private.hold_stock(p_checkout uuid, p_lines jsonb, p_until timestamptz, p_cap integer) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb := app_private.lock_stock(p_checkout, p_lines);
  v_user uuid;
  v_client text;
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
  select coalesce(jsonb_agg(e || jsonb_build_object('heldElsewhere', coalesce((
      select sum(h.quantity)::integer
        from public.stock_holds h join public.checkouts c on c.id = h.checkout_id
       where h.product_id = (e ->> 'productId')::int and h.color = e ->> 'color' and h.size = e ->> 'size'
         and h.expires_at > now() and h.checkout_id <> p_checkout
         and case when v_user is not null then c.user_id = v_user
                  else c.user_id is null and c.client_key = v_client end
    ), 0)) order by (e ->> 'productId')::int, e ->> 'color', e ->> 'size'), '[]'::jsonb)
    into v_counted
    from jsonb_array_elements(v_counted) e;
  if exists (select 1 from jsonb_array_elements(v_counted) e
              where (e ->> 'wanted')::int + (e ->> 'heldElsewhere')::int > p_cap) then
    return v_counted;
  end if;
  delete from public.stock_holds h where h.checkout_id = p_checkout;
  insert into public.stock_holds (checkout_id, product_id, color, size, quantity, expires_at)
    select p_checkout, (e ->> 'productId')::int, e ->> 'color', e ->> 'size', (e ->> 'wanted')::int, p_until
    from jsonb_array_elements(v_counted) e;
  return v_counted;
end;
$$;

-- A new checkout, stored and held in one statement, as before, now with its client key and the cap.
drop function app_private.open_checkout(jsonb, jsonb, timestamptz);
create function app_private.open_checkout(p_checkout jsonb, p_lines jsonb, p_until timestamptz, p_cap integer)
returns jsonb
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
  v_counted := app_private.hold_stock(v_id, p_lines, p_until, p_cap);
  if not exists (select 1 from public.stock_holds h where h.checkout_id = v_id)
     and exists (select 1 from jsonb_array_elements(v_counted)) then
    -- Counted lines, and nothing held: short of stock or past the cap. The checkout is not kept.
    delete from public.checkouts c where c.id = v_id;
  end if;
  return jsonb_build_object('id', v_id, 'counted', v_counted);
end;
$$;

revoke all on function app_private.hold_stock(uuid, jsonb, timestamptz, integer),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer) from public, anon, authenticated;
grant execute on function app_private.hold_stock(uuid, jsonb, timestamptz, integer),
  app_private.open_checkout(jsonb, jsonb, timestamptz, integer) to service_role;
