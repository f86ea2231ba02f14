/** The web domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export { customerRoutes } from './customer-routes.ts';
export { purgeWebSessions, unlockAccount } from './sessions.ts';
export { webRoutes } from './web-routes.ts';
