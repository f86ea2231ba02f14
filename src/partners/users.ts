import { audit } from '../platform/audit.ts';
import { hashPassword } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';

/** Creates a portal user of a partner; the password is stored as a scrypt hash. */
export async function createUser(db: Db, actor: string, input: { partnerId: string; email: string; password: string }): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    throw new DomainError('validation_failed', 'The email address is not valid.', { errors: [{ field: '/email', message: 'must be an email address' }] });
  }
  if (input.password.length < 10) {
    throw new DomainError('validation_failed', 'The password is too short.', { errors: [{ field: '/password', message: 'must be at least 10 characters' }] });
  }
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new DomainError('conflict', `A user with email ${email} already exists.`);
    const user = await trx.insertInto('users').values({ partner_id: input.partnerId, email, password_hash: passwordHash }).returning(['id', 'email']).executeTakeFirstOrThrow();
    await audit(trx, { actor, partnerId: input.partnerId, entity: 'user', entityId: user.id, action: 'created', data: { email } });
    return user;
  });
}
