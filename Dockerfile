# syntax=docker/dockerfile:1
#
# Two final targets:
#   runtime (default)  the payments service: node dist/src/entry/{migrate,worker,api}.js (docker-compose.yml)
#   temporal           the Temporal CLI dev server, built from the Go module as scripts/lib.sh does: a
#                      single-host image like `npm start`'s; docker-compose.yml uses Temporal's official images
#
#   docker build -t payments-service .
#   docker build --target temporal -t payments-temporal .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
# build: dependencies from the lock file, TypeScript -> dist/, the workflow bundle, then prune.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is a workspace of the root package; the service signs webhooks with its signature module.
COPY sdk/package.json ./sdk/
# `npm ci` refuses this lock file on registries that lack some optional platform packages
# (@swc/core's); `npm install` honours the lock as it is (same as scripts/lib.sh).
RUN npm install --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY sdk/src ./sdk/src
RUN npx tsc -p tsconfig.build.json
# Bundle the workflows once at build time, so the worker starts without webpack
# (the worker reads WORKFLOW_BUNDLE_PATH, or its .traced.js twin when tracing is on; without it,
# it bundles dist/workflows at start-up).
RUN node dist/src/entry/bundle-workflows.js dist/workflow-bundle.js
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=error

# ---------------------------------------------------------------------------------------------
# temporal: the same Temporal CLI version as scripts/lib.sh (TEMPORAL_CLI_VERSION), pure Go.
# The CLI's go.mod needs Go >= 1.25.
FROM golang:1.25-bookworm AS temporal-build
ARG TEMPORAL_CLI_VERSION=1.5.1
RUN CGO_ENABLED=0 GOBIN=/out go install \
      -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}" \
      "github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}"

FROM debian:bookworm-slim AS temporal
RUN useradd --uid 1000 --create-home temporal \
 && mkdir -p /data \
 && chown temporal:temporal /data
COPY --from=temporal-build /out/temporal /usr/local/bin/temporal
USER temporal
VOLUME /data
# 7233 gRPC frontend, 8233 web UI.
EXPOSE 7233 8233
ENTRYPOINT ["temporal"]
# Mirrors scripts/start.sh: SQLite persistence in /data and our search attributes registered.
CMD ["server", "start-dev", "--ip", "0.0.0.0", "--port", "7233", "--ui-port", "8233", \
     "--db-filename", "/data/temporal.db", "--log-level", "warn", \
     "--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal", \
     "--search-attribute", "MerchantId=Keyword", \
     "--search-attribute", "CustomerId=Keyword", \
     "--search-attribute", "CheckoutType=Keyword"]

# ---------------------------------------------------------------------------------------------
# runtime (the default target, so last): production dependencies and compiled code only, as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Static assets the compiled code reads from src/ (e.g. src/wallet/static); tsc does not copy them.
COPY --from=build /app/src ./src
USER node
EXPOSE 3000
# One image, three commands (docker-compose.yml sets the command per service).
CMD ["node", "dist/src/entry/api.js"]
