/** The limits domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  highestExposures,
  listCaps,
  readCap,
  releaseExposure,
  reserveExposure,
  setCap,
  type ExposureView,
} from './exposure.ts';
export { type Cap, type StopSale } from './limits-repo.ts';
export { maxPayoutPerPassenger, stopSaleScopeText } from './limits.ts';
export { LimitsSnapshot } from './snapshot.ts';
export { countStopSales, listStopSales, resumeSales, STOP_SALES_LISTED, suspendSales } from './stop-sales.ts';
