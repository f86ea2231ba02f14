/** The limits domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  highestExposures,
  listCaps,
  moveExposure,
  readCap,
  releaseExposure,
  reserveExposure,
  setCap,
  readExposureFilter,
  type ExposureFilter,
  type ExposurePage,
  type ExposureView,
} from './exposure.ts';
export { type Cap, type StopSale, type StopSaleListing } from './limits-repo.ts';
export { maxPayoutPerPassenger, stopSalePeriodText, stopSaleScopeText, stopSaleState } from './limits.ts';
export { LimitsSnapshot } from './snapshot.ts';
export {
  countStopSales,
  listStopSales,
  resumeSales,
  STOP_SALE_LISTINGS,
  STOP_SALES_LISTED,
  suspendSales,
} from './stop-sales.ts';
