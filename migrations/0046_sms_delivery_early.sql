-- Delivery receipts that arrive before their message is known (docs/sms.md, "Delivery receipts"): Twilio
-- may report a status before the send job has recorded Twilio's message id (a failure reported at once).
-- Such a receipt is kept here, then applied when the send records that id; one never matched (another
-- application's message on the same account, or the first send of a message whose job stopped before
-- storing Twilio's answer and sent it again) is forgotten after a day. Ids and statuses only: no personal data.
CREATE TABLE sms_delivery_early (
  id           bigserial PRIMARY KEY,
  provider     text NOT NULL,
  message_sid  text NOT NULL,
  status       text NOT NULL
    CHECK (status IN ('accepted', 'scheduled', 'queued', 'sending', 'sent', 'delivered', 'undelivered',
                      'failed', 'read', 'partially_delivered', 'canceled')),
  error        integer,
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sms_delivery_early_message ON sms_delivery_early (provider, message_sid);
CREATE INDEX sms_delivery_early_received ON sms_delivery_early (received_at);
