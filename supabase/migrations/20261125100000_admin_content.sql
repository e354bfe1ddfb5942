-- The admin's reviews, messages and subscribers (issue 10). Admins change these rows as service_role through named
-- server paths (src/server/admin/); shoppers' rights stay exactly as they were, except that a rejected review is no
-- longer shown to its own author.

-- Reviews: pending (neither flag), approved (is_approved), or rejected (rejected_at). A rejected review stays stored
-- (the activity log refers to it, and an admin may still approve it) but is shown to nobody.
alter table public.product_reviews add column rejected_at timestamptz;
alter table public.product_reviews
  add constraint product_reviews_approved_or_rejected check (not (is_approved and rejected_at is not null));

-- Its author saw their unapproved review marked 'Awaiting approval'; a rejected one would say so forever. It now
-- disappears for them too, as it does for everyone else.
drop policy "reviews: approved ones, and my own" on public.product_reviews;
create policy "reviews: approved ones, and my own not rejected" on public.product_reviews for select to anon, authenticated
  using (is_approved or (user_id = (select auth.uid()) and rejected_at is null));

-- The moderation queue: pending reviews, newest first, a page at a time.
create index product_reviews_pending on public.product_reviews (created_at desc, id desc)
  where not is_approved and rejected_at is null;

-- Contact messages: read or not, as the shop owner marked them. Shoppers still write only name, email and message.
alter table public.contact_messages add column read_at timestamptz;
create index contact_messages_unread on public.contact_messages (id) where read_at is null;

-- The subscriber list, newest first, a page at a time (and counted by when people subscribed).
create index newsletter_subscribers_recent on public.newsletter_subscribers (subscribed_at desc, user_id desc);
