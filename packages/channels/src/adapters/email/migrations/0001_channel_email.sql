-- Email threading (spec 001 §3.4): every Message-ID received or sent on a connection and the
-- conversation (external session key) it belongs to. A reply finds its session through
-- In-Reply-To, then References.
create table channel_email_threads (
  connection_id text not null,
  message_id text not null,
  external_session_key text not null,
  direction text not null check (direction in ('inbound', 'outbound')),
  created_at timestamptz not null default now(),
  primary key (connection_id, message_id)
);

-- Auto-reply cooldown (spec 001 §8): the last reply sent to an address on a connection.
create table channel_email_cooldowns (
  connection_id text not null,
  address text not null,
  reply_message_id text not null,
  replied_at timestamptz not null,
  primary key (connection_id, address)
);

-- What became of each reply: sent (with its Message-ID) or suppressed by the cooldown.
create table channel_email_outbound (
  connection_id text not null,
  reply_message_id text not null,
  email_message_id text not null,
  recipient text not null,
  outcome text not null check (outcome in ('sent', 'suppressed')),
  created_at timestamptz not null default now(),
  primary key (connection_id, reply_message_id)
);
