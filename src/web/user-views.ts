import { USER_ROLES, type UserRow } from '../partners/index.ts';
import { html } from '../platform/html.ts';
import { label, t } from '../i18n/index.ts';
import { csrfField, formatDate, page, tableRegion, type PageContext } from './layout.ts';

/** The partner console's Users page (admins): the users, invite, change a role, remove. */

export interface UsersOutcome {
  notice?: string;
  problems?: string[];
  /** The invitation form's values, kept after a refusal. */
  email?: string;
  role?: string;
}

export function usersPage(ctx: PageContext, users: UserRow[], now: Date, outcome: UsersOutcome = {}): string {
  const w = t(ctx.lang);
  const u = w.partnerUsers;
  const csrf = csrfField(ctx.session!.csrfToken);
  const roleOptions = (selected: string) =>
    USER_ROLES.map(
      (role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${u.roles[role]}</option>`,
    );
  const rows = users.map((user) => {
    const self = user.id === ctx.session!.accountId;
    return html`<tr data-user="${user.id}">
<td>${user.email}${self ? html` <span class="muted">${u.you}</span>` : ''}</td>
<td>${u.roles[user.role]}</td>
<td>${user.activatedAt ? u.activeStatus : (user.invitationExpiresAt ?? now) > now ? u.invitedStatus : u.invitationExpired}</td>
<td>${formatDate(user.lastSignInAt, ctx.lang, u.never)}</td>
<td><form method="post" action="/console/users/${user.id}/role" class="row">${csrf}
<label class="visually-hidden" for="role-${user.id}">${u.role} ${user.email}</label>
<select id="role-${user.id}" name="role">${roleOptions(user.role)}</select>
<button type="submit">${u.changeRole}</button></form>
${user.activatedAt ? '' : html`<form method="post" action="/console/users/${user.id}/resend">${csrf}<button type="submit" aria-label="${u.resend} ${user.email}">${u.resend}</button></form>`}
<form method="post" action="/console/users/${user.id}/remove" data-confirm="${u.remove} ${user.email}?">${csrf}<button type="submit" class="danger" aria-label="${u.remove} ${user.email}">${u.remove}</button></form></td>
</tr>`;
  });
  return page(
    ctx,
    u.title,
    html`<h1>${u.title}</h1>
<p>${u.intro}</p>
<ul>${USER_ROLES.map((role) => html`<li><strong>${label(ctx.lang, u.roles[role])}</strong> ${u.roleHelp[role]}</li>`)}</ul>
${outcome.notice ? html`<p class="notice" role="status" id="users-notice">${outcome.notice}</p>` : ''}
${outcome.problems?.length ? html`<div class="alert" role="alert" id="users-problems">${outcome.problems.map((p) => html`<p>${p}</p>`)}</div>` : ''}
<section class="card"><h2>${u.inviteTitle}</h2>
<form method="post" action="/console/users" class="row">${csrf}
<div><label for="invite-email">${w.email}</label><input id="invite-email" name="email" type="email" required value="${outcome.email ?? ''}"></div>
<div><label for="invite-role">${u.role}</label><select id="invite-role" name="role">${roleOptions(outcome.role ?? 'viewer')}</select></div>
<div><button type="submit">${u.invite}</button></div>
</form></section>
${tableRegion(
  u.title,
  html`<table><caption class="visually-hidden">${u.title}</caption><thead><tr><th scope="col">${w.email}</th><th scope="col">${u.role}</th><th scope="col">${u.status}</th><th scope="col">${u.lastSignIn}</th><th scope="col">${u.actions}</th></tr></thead><tbody>${rows}</tbody></table>`,
)}`,
  );
}
