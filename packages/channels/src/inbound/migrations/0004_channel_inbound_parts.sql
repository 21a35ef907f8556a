-- Parts of a message a platform delivers in pieces (a concatenated SMS through Vonage's SMS API:
-- `concat-ref`, `concat-part`, `concat-total`), kept until every part is in and the joined
-- message is queued, or until the part timeout releases what came (inbound/parts). A row per
-- part, keyed like the dedupe rows (a retried part is a no-op); `group_id` tells apart two
-- messages of one sender that reuse a reference. Released rows stay for a while so that a part
-- retried after its message was answered is still recognised, then the sweep deletes them.
create table channel_inbound_parts (
  connection_id text not null,
  external_message_id text not null,
  external_session_key text not null,
  part_group text not null,
  group_id uuid not null,
  part_index integer not null,
  part_total integer not null,
  channel_type text not null,
  message jsonb not null,
  received_at timestamptz not null default now(),
  released_at timestamptz,
  primary key (connection_id, external_message_id)
);

create index channel_inbound_parts_group on channel_inbound_parts (group_id);
create index channel_inbound_parts_reference
  on channel_inbound_parts (connection_id, external_session_key, part_group);
create index channel_inbound_parts_open on channel_inbound_parts (received_at) where released_at is null;
create index channel_inbound_parts_released on channel_inbound_parts (released_at) where released_at is not null;
