-- Provider variants of a channel type (spec 001 §4.1: /api/v1/channels/{channelType}/{provider}/webhook):
-- which platform serves the connection, e.g. `twilio` or `vonage` for `sms`. Null for channel
-- types with a single implementation. Set when the connection is created, never changed (its
-- credentials and webhook path depend on it). Existing SMS connections are the default provider's.
alter table channel_connections add column provider text
  check (provider ~ '^[a-z][a-z0-9_]{0,63}$');
update channel_connections set provider = 'twilio' where channel_type = 'sms';
