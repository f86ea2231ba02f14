-- A partner searches its contracts by booking reference (GET /flight-delay/v1/contracts).
CREATE INDEX contracts_booking_reference ON contracts (partner_id, environment, booking_reference);
