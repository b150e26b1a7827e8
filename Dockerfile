# syntax=docker/dockerfile:1
# One image for the API server, the worker and the one-shot CLIs (migrations, platform:create).
# Built once (docker compose builds it for one service and the others reuse the tag); three stages:
#   prod-deps  production dependencies only, exactly as locked;
#   build      every dependency, the generated Prisma client, tsc → dist/;
#   runtime    prod-deps' node_modules + dist/ + what the code reads at run time, tini as PID 1.
# See docs/deploy.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- prod-deps: production dependencies only (no scripts: nothing to compile or fetch) ----
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# ---- build: all dependencies, generate the Prisma client, compile ----
FROM ${NODE_IMAGE} AS build
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
# tsc compiles src/ (including src/generated/prisma) into dist/ (plus dist/openapi.json).
RUN npm run build

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies; node runs directly (no npm,
# no shell), so its shutdown handler drains in-flight requests and jobs (docs/deploy.md "Shutdown").
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_HEALTH_PORT=3001 \
    DOCUMENT_STORAGE_DIR=/app/var/documents

COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/dist ./dist
# dist/cli/db-migrate.js and the start-up schema check read ./prisma/migrations at run time.
COPY --from=build /app/prisma/migrations ./prisma/migrations
COPY --from=build /app/openapi.yaml ./openapi.yaml
# src/domains/external-accounts/discoveries.ts reads ./data/discoveries.json at start-up.
COPY --from=build /app/data ./data

# Application files stay root-owned and read-only for the process. Writable: /app/var (local
# document storage; mount a volume there). Operator adapter modules are mounted read-only at
# /app/adapters and named by path, e.g. RAIL_ADAPTERS=ACH:./adapters/my-bank.js (docs/deploy.md).
RUN mkdir -p /app/var/documents /app/adapters && chown -R node:node /app/var
VOLUME ["/app/var"]
USER node

EXPOSE 3000 3001
# The API's liveness; the worker's is on WORKER_HEALTH_PORT (compose and Kubernetes set their own probes).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
# The API server. The worker: ["node", "dist/worker.js"]; migrations: ["node", "dist/cli/db-migrate.js"].
CMD ["node", "dist/server.js"]
