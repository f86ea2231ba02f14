import { readOutbox } from '../notify/index.ts';
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
export async function listSandboxMessages(
  deps: FlightDeps,
  caller: Caller,
  contractNumber: string,
): Promise<{ messages: SandboxMessage[] }> {
  if (caller.environment === 'production')
    throw new DomainError('not_found', 'Production messages are sent to customers, not kept in an outbox.');
  const contract = await contracts.findContract(deps.db, caller, contractNumber.trim().toUpperCase());
  if (!contract) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  const messages = await readOutbox(deps.db, deps.keys.encryption, {
    partnerId: caller.partnerId,
    contractId: contract.id,
  });
  return { messages: messages.map((m) => ({ ...m, sentAt: m.sentAt.toISOString() })) };
}
