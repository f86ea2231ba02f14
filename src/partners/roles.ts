import { DomainError } from '../platform/errors.ts';
import { USER_ROLES, type UserRole } from './model.ts';

/**
 * What each role of a partner user may change (docs/portal.md, "Users and roles"). Reading is open to
 * every role; each write of the portal and console names the permission it needs, checked on the
 * server (buttons a role may not use are also hidden, which is only a courtesy).
 */
export type Permission = 'keys' | 'webhooks' | 'configuration' | 'users';

const GRANTS: Record<UserRole, readonly Permission[]> = {
  admin: ['keys', 'webhooks', 'configuration', 'users'],
  developer: ['keys', 'webhooks'],
  viewer: [],
};

export function can(role: UserRole, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** Throws `forbidden` (403) when `role` lacks `permission`. */
export function requirePermission(role: UserRole, permission: Permission): void {
  if (!can(role, permission)) throw new DomainError('forbidden', `The ${role} role may not change ${permission}.`);
}

export function parseRole(value: string): UserRole {
  if ((USER_ROLES as readonly string[]).includes(value)) return value as UserRole;
  throw new DomainError('validation_failed', 'The role is not valid.', {
    errors: [{ field: '/role', code: 'not_allowed', message: `must be one of ${USER_ROLES.join(', ')}` }],
  });
}
