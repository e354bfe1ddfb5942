-- A line bought while its product was marked final sale (catalogue `finalSale`: opened skincare, for hygiene) cannot
-- be returned. Recorded with the order, as its name and price are: an editor marking a product final sale later does
-- not take back a return the shopper was promised when they bought it, nor does unmarking it open one.
alter table public.order_items
  add column final_sale boolean not null default false;
