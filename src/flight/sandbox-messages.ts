import { decrypt } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import * as contracts from './contracts-repo.ts';
import type { Caller, FlightDeps } from './deps.ts';

export interface SandboxMessage {
  to: string;
  body: string;
  link: string | null;
  sentAt: string;
}

/**
 * GET /sandbox/messages: what the customers of one of the caller's sandbox or preproduction
 * contracts would have received by SMS (the outbox), oldest first. Production has no outbox: 404.
 */
export async function listSandboxMessages(deps: FlightDeps, caller: Caller, contractNumber: string): Promise<{ messages: SandboxMessage[] }> {
  if (caller.environment === 'production') throw new DomainError('not_found', 'Production messages are sent to customers, not kept in an outbox.');
  const contract = await contracts.findContract(deps.db, caller, contractNumber);
  if (!contract) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  const rows = await deps.db
    .selectFrom('sms_outbox')
    .select(['to_enc', 'body', 'link', 'sent_at'])
    .where('contract_id', '=', contract.id)
    .where('partner_id', '=', caller.partnerId)
    .orderBy('sent_at')
    .orderBy('id')
    .execute();
  return { messages: rows.map((r) => ({ to: decrypt(deps.keys.encryption, r.to_enc), body: r.body, link: r.link, sentAt: r.sent_at.toISOString() })) };
}
