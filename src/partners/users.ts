import { audit } from '../platform/audit.ts';
import { hashPassword } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import * as repo from './partners-repo.ts';

/** Creates a portal user of a partner; the password is stored as a scrypt hash. */
export async function createUser(
  db: Db,
  actor: string,
  input: { partnerId: string; email: string; password: string },
): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    throw new DomainError('validation_failed', 'The email address is not valid.', {
      errors: [{ field: '/email', code: 'invalid_format', message: 'must be an email address' }],
    });
  }
  if (input.password.length < 10) {
    throw new DomainError('validation_failed', 'The password is too short.', {
      errors: [{ field: '/password', code: 'too_short', message: 'must be at least 10 characters' }],
    });
  }
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    if ((await repo.findUserIdByEmail(trx, email)) !== undefined)
      throw new DomainError('conflict', `A user with email ${email} already exists.`);
    const user = await repo.insertUser(trx, { partner_id: input.partnerId, email, password_hash: passwordHash });
    await audit(trx, {
      actor,
      partnerId: input.partnerId,
      entity: 'user',
      entityId: user.id,
      action: 'created',
      data: { email },
    });
    return user;
  });
}
