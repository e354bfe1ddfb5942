-- A new checkout is stored and its counted items held in one statement (one round trip, one commit), where it was two
-- transactions: the checkout's insert, then the hold. With nothing counted the hold wrote nothing, so its commit cost
-- nothing; with an item counted it wrote the hold, and its commit was one more write to the log to wait for on every
-- order. Measured by bench:api's order placement with every product counted against nothing counted (docs/performance.md).
--
-- `p_checkout` is the checkout's columns as JSON (as public.checkouts names them). When the lines do not all fit, the
-- checkout is deleted again and nothing is held: the answer (hold_stock's) says why. Returns {id, counted}.
create function app_private.open_checkout(p_checkout jsonb, p_lines jsonb, p_until timestamptz) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_id uuid;
  v_counted jsonb;
begin
  insert into public.checkouts (user_id, lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
      total_cents, content_hash)
    select r.user_id, r.lines, r.address, r.rate, r.parcel_weight_lb, r.subtotal_cents, r.shipping_cents, r.tax_cents,
           r.total_cents, r.content_hash
      from jsonb_populate_record(null::public.checkouts, p_checkout) r
    returning id into v_id;
  v_counted := app_private.hold_stock(v_id, p_lines, p_until);
  if app_private.stock_short(v_counted) then
    delete from public.checkouts c where c.id = v_id;
  end if;
  return jsonb_build_object('id', v_id, 'counted', v_counted);
end;
$$;

revoke all on function app_private.open_checkout(jsonb, jsonb, timestamptz) from public, anon, authenticated;
grant execute on function app_private.open_checkout(jsonb, jsonb, timestamptz) to service_role;
