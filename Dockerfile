# syntax=docker/dockerfile:1
# Multi-stage image for the API server, the worker and the one-shot CLIs
# (db:migrate:prod, platform:create:prod). See README.md "Quick start".

# ---- build: install all dependencies, generate the Prisma client, compile, prune ----
FROM node:20-bookworm-slim AS build
WORKDIR /app

# Prisma's engine binaries are never needed: the client talks to Postgres through
# @prisma/adapter-pg, and `prisma generate` only needs this variable to name an
# existing file (decision A22). Migrations are plain SQL applied by our own runner.
ENV PRISMA_SCHEMA_ENGINE_BINARY=/dev/null \
    CHECKPOINT_DISABLE=1 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# Dependency layer: only what `npm ci` and its postinstall (`prisma generate`) read. Its `prepare` step
# (scripts/prepare.mjs) builds dist/ where the sources are present; here they are not yet, so it skips and
# the build runs below, after the sources are copied.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/prepare.mjs ./scripts/prepare.mjs
RUN npm ci

# Sources (src/generated is excluded by .dockerignore; the client generated above stays).
COPY . .
# tsc compiles src/ (including src/generated/prisma) into dist/ (plus dist/openapi.json); then drop dev dependencies.
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts

# ---- runtime ----
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# dist/cli/db-migrate.js reads ./prisma/migrations at run time.
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/openapi.yaml ./openapi.yaml
# src/domains/external-accounts/discoveries.ts reads ./data/discoveries.json at start-up.
COPY --from=build /app/data ./data

# Application files stay root-owned and read-only for the process; var/ is the only
# writable directory (local storage, e.g. uploaded documents).
RUN mkdir -p /app/var && chown node:node /app/var
USER node

EXPOSE 3000
# The slim image has no curl: use Node's fetch.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

CMD ["npm", "run", "start:prod"]
