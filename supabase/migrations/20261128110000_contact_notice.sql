-- Every contact message is also e-mailed to the shop (SHOP_ADMIN_EMAIL), once, through the outbox (issue 25): the
-- message is written as the shopper or guest who sent it (row-level security decides, as before), and in the same
-- transaction this trigger queues the notice, so neither exists without the other. The trigger runs as its owner:
-- anon and authenticated have no privilege on the outbox, and none is granted here.
create function app_private.queue_contact_notice() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.outbox (kind, payload, dedupe_key)
  values ('contact-notice', jsonb_build_object('messageId', new.id), 'contact:' || new.id)
  on conflict (dedupe_key) do nothing;
  return new;
end;
$$;
revoke all on function app_private.queue_contact_notice() from public, anon, authenticated, service_role;

create trigger contact_messages_notice after insert on public.contact_messages
  for each row execute function app_private.queue_contact_notice();
