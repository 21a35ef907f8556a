-- Synchronous channels (delivery `sync_response`, spec 001 §2.2): how a message's request was
-- answered (the SyncOutcome the adapter rendered: the agent's reply and whether the session ended,
-- or the error) is kept on its dedupe row, so the platform's retry of the same message (same
-- external message id) is answered the same way and the turn never runs twice. The outcome, not
-- the rendered bytes, is stored: a VoiceXML document carries the hook URL with its token, which
-- does not belong at rest. Null on rows of asynchronous channels, and while a turn is running.
alter table channel_inbound_messages add column sync_outcome jsonb;
