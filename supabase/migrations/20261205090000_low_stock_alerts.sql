-- A low-stock e-mail to the shop (SHOP_ADMIN_EMAIL), once per crossing (issue 43, part 4): when a sale leaves a counted
-- item with no more on hand than the owner's low-stock threshold, the shop is e-mailed once. Further sales send
-- nothing more; the item is armed again only once its count is above the threshold (restocked, a cancelled order's
-- items put back, the threshold lowered and the count then changed), and the next sale to the threshold or below
-- e-mails again. The owner's own count changes e-mail nothing: they typed the number.
--
-- What is counted is what is on hand (sold), not what checkouts hold for 15 minutes: a hold that lapses would
-- otherwise e-mail about stock that never left. The overview's low-stock list still shows what can be bought.
--
-- Exactly once, whatever runs at once: the e-mail is queued by a trigger on the sale itself (a stock_sales row, written
-- by app_private.sell_stock under the item's row lock), in the sale's transaction, by a conditional update of the
-- item's flag: of two sales crossing together, the second waits for the first's lock and then finds the flag set.

alter table public.stock_levels add column low_alerted boolean not null default false;

-- Items already at or below the threshold are on the overview's list: their first e-mail would be no news.
update public.stock_levels s set low_alerted = true
  from public.stock_settings t
  where s.on_hand <= t.low_stock_threshold;

-- A count above the threshold arms the item again (whoever changed it: a restock, a put-back, the owner).
create function app_private.rearm_low_stock() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.on_hand > (select t.low_stock_threshold from public.stock_settings t) then
    new.low_alerted := false;
  end if;
  return new;
end;
$$;
revoke all on function app_private.rearm_low_stock() from public, anon, authenticated, service_role;

create trigger stock_levels_rearm_low before update of on_hand on public.stock_levels
  for each row execute function app_private.rearm_low_stock();

-- A sale that leaves the item at the threshold or below, while it is armed: the flag is set and the e-mail queued, in
-- one conditional update, so it happens once per crossing. The dedupe key names the sale (its checkout and item).
create function app_private.queue_low_stock_notice() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_on_hand integer;
  v_threshold integer;
begin
  select t.low_stock_threshold into v_threshold from public.stock_settings t;
  update public.stock_levels s set low_alerted = true
    where s.product_id = new.product_id and s.color = new.color and s.size = new.size
      and not s.low_alerted and s.on_hand <= v_threshold
    returning s.on_hand into v_on_hand;
  if found then
    insert into public.outbox (kind, payload, dedupe_key)
    values ('low-stock-email',
      jsonb_build_object('productId', new.product_id, 'color', new.color, 'size', new.size, 'label', new.label,
        'onHand', v_on_hand, 'threshold', v_threshold),
      'low-stock:' || new.checkout_id || ':' || new.product_id || ':' || new.color || ':' || new.size)
    on conflict (dedupe_key) do nothing;
  end if;
  return new;
end;
$$;
revoke all on function app_private.queue_low_stock_notice() from public, anon, authenticated, service_role;

create trigger stock_sales_low_stock after insert on public.stock_sales
  for each row execute function app_private.queue_low_stock_notice();
