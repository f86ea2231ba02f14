/** The vocabulary of emails: the database schema derives from it. */
export const EMAIL_STATUSES = ['queued', 'sent', 'rejected'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
