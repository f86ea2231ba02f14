/** The notify domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { OutboxSmsProvider } from './sms/outbox.ts';
export {
  SMS_QUEUE_POLICY,
  giveUpStaleSms,
  queueSms,
  requeueStaleSms,
  sendQueuedSms,
  smsExists,
  smsRetryReason,
  SmsDeferred,
} from './sms/sms-queue.ts';
export { SmsRejectedError, type SmsProvider } from './sms/sms.ts';
export { readOutbox, SqlOutboxStore } from './sms/sql-outbox.ts';
export {
  airportTimeZones,
  nextSendableAt,
  phoneTimeZones,
  quietHoursHold,
  QUIET_HOURS_KINDS,
  HOLD_MARGIN_MS,
} from './sms/quiet-hours.ts';
export { tripEndAirports } from './sms/sms-repo.ts';
export { emailExists } from './email/email-repo.ts';
export {
  formatAmount,
  formatDelay,
  formatDepartureDate,
  renderClaimSms,
  renderPaidSms,
  renderPaymentFailedSms,
  renderReminderSms,
  renderVoidedSms,
  renderExpiredSms,
  type ClaimEvent,
  type ClaimSms,
} from './sms/templates.ts';
export { TwilioSmsProvider } from './sms/twilio.ts';
export {
  applyEarlyReceipts,
  isSmsDeliveryStatus,
  recordSmsDelivery,
  sweepEarlyReceipts,
  type OnUndelivered,
  type SmsDeliveryReport,
  type UndeliveredSms,
} from './sms/delivery.ts';
export { isTwilioSignature } from './sms/twilio-signature.ts';
export { twilioStatusRoutes } from './sms/twilio-status-routes.ts';
export { smsPlatformFailures, type SmsPlatformFailure } from './sms/platform-failures.ts';
export { claimMessages, maskPhone, messageKind, messageStatusText, type ClaimMessage } from './sms/claim-messages.ts';
export {
  EMAIL_QUEUE_POLICY,
  SMTP_CIRCUIT,
  MAX_EMAIL_ATTEMPTS,
  emailRetryReason,
  giveUpStaleEmails,
  queueEmail,
  readEmails,
  requeueStaleEmails,
  sendQueuedEmail,
  type EmailProviders,
  type EmailView,
  type OnEmailRejected,
  type RejectedEmail,
  type QueuedEmail,
} from './email/email-queue.ts';
export {
  EMAIL_ADDRESS,
  EmailRejectedError,
  EmailRetryableError,
  type EmailMessage,
  type EmailProvider,
} from './email/email.ts';
export { OutboxEmailProvider } from './email/outbox.ts';
export { SmtpEmailProvider, type SmtpOptions } from './email/smtp.ts';
export {
  renderClaimOpenedEmail,
  renderReceiptEmail,
  renderReminderEmail,
  type ClaimOpenedEmailInput,
  type CustomerEmail,
  type ReceiptEmailInput,
  type ReminderEmailInput,
} from './email/customer-emails.ts';
export { customerPhoneError, customerPhoneRefusal, notSmsType } from './sms/customer-phone.ts';
