/** The vocabulary of production SMS: the database schema derives from it. */
export const SMS_STATUSES = ['queued', 'sent', 'rejected'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];
