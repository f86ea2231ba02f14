/** The ledger domain's public face (docs/ARCHITECTURE.md, import rules; docs/bordereaux.md). */
export { LEDGER_KINDS, REPORT_FORMATS, STATEMENT_FORMATS, type LedgerKind, type Movement } from './model.ts';
export type { ReportFormat, StatementFormat } from './model.ts';
export {
  backfillLedger,
  cancellationMovements,
  changeMovements,
  movementsWrite,
  payoutMovement,
  recordMovements,
  recordPayoutReturn,
  saleMovements,
} from './record.ts';
export {
  CLAIM_COLUMNS,
  PREMIUM_COLUMNS,
  STATEMENT_COLUMNS,
  claimsBordereau,
  dayRange,
  type DayRangeWords,
  EXPORT_RANGE_WORDS,
  MAX_EXPORT_DAYS,
  monthPeriod,
  partnerStatement,
  premiumBordereau,
  type Period,
  type Scope,
  type Statement,
  type StatementLine,
} from './reports.ts';
export {
  BORDEREAU_KINDS,
  bordereauFile,
  type BordereauKind,
  renderReport,
  statementCsv,
  statementPdf,
  toCsv,
  toXlsx,
} from './render.ts';
export { entriesOfContract } from './ledger-repo.ts';
