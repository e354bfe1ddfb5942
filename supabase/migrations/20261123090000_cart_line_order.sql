-- A saved cart keeps the order the shopper filled it in: the lines are replaced as a whole on every save, and without
-- a position of their own they would come back in key order ('10' before '3') on the next device.
alter table public.user_carts add column sort_order smallint not null default 0 check (sort_order >= 0);
