-- Messages sent on connections whose platform reports on them (delivery receipts, status
-- callbacks: adapters with parseReceipts): the platform's message id to the reply and session it
-- belongs to, so that a receipt arriving on the webhook is recorded on the reply's session. One
-- row per platform message (a reply sent in parts has one per part).
create table channel_outbound_messages (
  connection_id text not null,
  external_message_id text not null,
  session_id text not null,
  message_id text not null,
  sent_at timestamptz not null default now(),
  primary key (connection_id, external_message_id)
);
