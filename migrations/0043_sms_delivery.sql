-- Delivery receipts of production SMS (docs/sms.md, "Delivery receipts"): Twilio posts each status
-- change of a message to the platform's status callback; the latest known is kept here. `status`
-- stays what the platform did (queued, sent, rejected at send); `delivery_status` is what the carrier
-- did after (Twilio's message status: sent, delivered, undelivered, failed…), with Twilio's error code
-- when it failed. A status never goes back (callbacks may arrive out of order).
ALTER TABLE sms_messages
  ADD COLUMN delivery_status text
    CHECK (delivery_status IN ('accepted', 'scheduled', 'queued', 'sending', 'sent', 'delivered', 'undelivered',
                               'failed', 'read', 'partially_delivered', 'canceled')),
  ADD COLUMN delivery_error integer,
  ADD COLUMN delivery_updated_at timestamptz;

-- a callback names the message by the provider's id
CREATE INDEX sms_messages_provider_message ON sms_messages (provider_message_id) WHERE provider_message_id IS NOT NULL;
