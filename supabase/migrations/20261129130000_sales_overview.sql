-- What sold: the admin's sales overview and the orders export.

-- A customer's first order: the overview counts a customer as new in the period of their first order that was not
-- cancelled, asking for each order of the period whether the same address (in any case) ordered earlier.
create index orders_customer_first on public.orders (lower(customer_email), created_at);

-- The export reads the orders oldest first, a page at a time after the last one sent (keyset on created_at, seq).
create index orders_placed on public.orders (created_at, seq);
