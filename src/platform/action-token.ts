/**
 * The one-time token of an operator's form (or CLI run): each rendering of a page that acts — the claim
 * desk's, the operator webhooks page's — carries one, and an action done once per token answers a
 * repeated submit with what the first did. What the token is recorded with is each domain's own
 * (docs/DECISIONS.md, "Once per form"); the token's shape and the answer to a form without a valid
 * one are shared here.
 */
import type { FieldError } from './errors.ts';

/** 16 to 64 letters, digits, `-` or `_` (what the pages draw: base64url of random bytes). */
export const ACTION_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/** The field error for a token missing or malformed: the form is stale (or not one of ours). */
export function actionTokenError(token: string): FieldError | undefined {
  if (ACTION_TOKEN.test(token)) return undefined;
  return { field: '/actionToken', code: 'invalid_format', message: 'the form is stale: open the page again' };
}
