-- Customers are served in seven languages (src/platform/language.ts, CUSTOMER_LANGUAGES); the
-- portal and consoles stay French and English.
ALTER TABLE contracts DROP CONSTRAINT contracts_customer_language_check;
ALTER TABLE contracts ADD CONSTRAINT contracts_customer_language_check
  CHECK (customer_language IN ('fr', 'en', 'de', 'es', 'it', 'nl', 'pt'));

-- The name customers know the partner by (SMS, emails, the bank-details page), set in the partner
-- console; NULL: the partner's name.
ALTER TABLE partners ADD COLUMN brand_name text
  CHECK (brand_name IS NULL OR (char_length(brand_name) BETWEEN 2 AND 40 AND brand_name !~ '[[:cntrl:]]'));
