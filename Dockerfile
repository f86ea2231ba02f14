# syntax=docker/dockerfile:1
# Parasol: one image for the API (default command), the workers (node dist/worker-main.js) and the
# operator CLI (node bin/parasol.js …). .ci/image-smoke.sh runs these exact steps on a clean copy.

# --- build: every dependency, TypeScript compiled to dist/ ---------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# --- runtime: production dependencies, compiled JavaScript, non-root -----------------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PARASOL_DATA_DIR=/var/lib/parasol
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY bin ./bin
# The embedded database and the SEPA files live under PARASOL_DATA_DIR (a volume); with DATABASE_URL
# only the payouts directory is written there.
RUN mkdir -p /var/lib/parasol && chown node:node /var/lib/parasol
USER node
EXPOSE 3000 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
