-- A delivery receipt kept before its message's id was recorded (0046) keeps what the provider's route
-- made of its error code: the platform's own failure ('lasting', or 'temporary': the message is sent
-- again), NULL the customer's or none. The provider-neutral delivery code reads it when it applies the
-- receipt later, as it reads a receipt applied at once. Additive: a previous version never reads it.
ALTER TABLE sms_delivery_early ADD COLUMN platform_failure text
  CHECK (platform_failure IN ('lasting', 'temporary'));
