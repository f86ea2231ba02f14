-- The claim's earlier bank-details links (docs/claims.md, "The bank-details page"): `claim_tokens`
-- keeps one link per claim, the newest, which a reminder, a resend (a contact change, an operator's
-- resend) or a rejected payment's new link replaces. The link it replaces is kept here, by its
-- token's SHA-256 as `claim_tokens` keeps it (never the token), so that the customer opening an
-- earlier message's link is told where the claim stands and that the newest message holds the link
-- to use (410), rather than that the link is unknown (404). It takes no bank details.
-- Rolling-update safe: a new table, which the previous version neither reads nor writes (a link a
-- process of the previous version replaces is not kept here: that earlier link answers 404, as before).
CREATE TABLE claim_tokens_replaced (
  token_hash   text PRIMARY KEY,
  claim_id     uuid NOT NULL REFERENCES claims(id),
  replaced_at  timestamptz NOT NULL DEFAULT now()
);
