-- Delivery receipts that arrive before their message is known (docs/sms.md, "Delivery receipts"): Twilio
-- may report a status before the send job has recorded Twilio's message id (a failure reported at once, or
-- a worker stopped between Twilio's answer and its commit). Such a receipt is kept here, then applied
-- when the send records that id; one never matched (another application's message on the same account, or
-- a send whose commit was lost) is forgotten after a day. Holds ids and statuses only: no personal data.
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
