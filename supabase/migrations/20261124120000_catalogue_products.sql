-- The catalogue's product ids in the database, so the schema itself refuses what Supabase's table API would otherwise
-- let a shopper write with the public key: a review, like, favorite or cart line for a product that does not exist,
-- and a backdated `created_at` / `updated_at` on their own rows.
--
-- The catalogue stays content (content/products/*.md); the server upserts its ids here on every start
-- (src/features/catalog/catalog-sync.server.ts). A product that leaves the catalogue keeps its row, marked
-- `in_catalogue = false`: shoppers' reviews, likes and favorites of it stay, and nothing is deleted behind their back.
-- Product ids are therefore never reused for a different product.

create table public.products (
  id integer primary key check (id > 0),
  -- Null only for ids found in shoppers' rows when this table was created, until the next start names them.
  name text,
  -- Whether the catalogue of the server that started last sells it. Informational: the endpoints check the catalogue.
  in_catalogue boolean not null default false
);
alter table public.products enable row level security;
-- The catalogue is public anyway; only the server writes it.
create policy "products: anyone may read" on public.products for select to anon, authenticated using (true);
grant select on public.products to anon, authenticated;
grant select, insert, update, delete on public.products to service_role;

-- Rows written before this migration keep working: their product ids become (unnamed, unsold) products first.
insert into public.products (id)
select product_id from public.user_carts
union select product_id from public.user_favorites
union select product_id from public.product_likes
union select product_id from public.product_reviews
on conflict (id) do nothing;

-- No `on delete cascade`: deleting a product that shoppers' rows refer to is refused, never silently spreading.
-- order_items has no foreign key on purpose: an order keeps a snapshot of what was bought, whatever the catalogue
-- does later, and only service_role writes it.
alter table public.user_carts
  add constraint user_carts_product_fk foreign key (product_id) references public.products (id);
alter table public.user_favorites
  add constraint user_favorites_product_fk foreign key (product_id) references public.products (id);
alter table public.product_likes
  add constraint product_likes_product_fk foreign key (product_id) references public.products (id);
alter table public.product_reviews
  add constraint product_reviews_product_fk foreign key (product_id) references public.products (id);

-- Timestamps are the database's: shoppers may write only the columns that are theirs to choose. Column privileges
-- rather than a trigger, so a sent `created_at` is refused ("permission denied") instead of silently replaced, as
-- product_reviews and contact_messages already do. Our own inserts name only these columns.
revoke insert on public.user_favorites from authenticated;
grant insert (user_id, product_id, product_name, product_image, product_price_cents, product_category)
  on public.user_favorites to authenticated;

revoke insert on public.product_likes from authenticated;
grant insert (product_id, user_id) on public.product_likes to authenticated;

revoke insert, update on public.user_carts from authenticated;
grant insert (user_id, cart_id, product_id, quantity, selected_color, selected_size, sort_order)
  on public.user_carts to authenticated;
grant update (user_id, cart_id, product_id, quantity, selected_color, selected_size, sort_order)
  on public.user_carts to authenticated;
