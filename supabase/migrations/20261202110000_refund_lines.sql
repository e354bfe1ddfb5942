-- A refund of some lines of an order (decision 009): which units of which lines it gave back and what was paid for
-- them (price less their share of the discount), so a later line refund knows what is left and the tax on all goods
-- refunded never passes the order's. Null for a refund of an amount.
alter table public.order_refunds
  add column items jsonb check (items is null or (jsonb_typeof(items) = 'array' and jsonb_array_length(items) between 1 and 100));
