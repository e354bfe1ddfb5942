-- "Newest first" in the order rows were written. Reviews and orders are keyed by random UUIDs and listed by created_at,
-- and the embedded database's clock moves in whole milliseconds: two reviews or orders written in the same millisecond
-- had the same created_at, and the UUID put them in either order (issue 24: a test saw Review 4 listed before
-- Review 5). An identity column records the order of insertion; lists order by (created_at, seq). Existing rows are
-- numbered in their physical order, which for rows that tie is the order they were written in.
alter table public.product_reviews add column seq bigint generated always as identity;
alter table public.orders add column seq bigint generated always as identity;
