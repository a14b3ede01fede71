# syntax=docker/dockerfile:1
# avawatch container image. Build: docker build -t avawatch .
# Run and operate it: docs/operations.md ("Docker").

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: bundles the TypeScript and compiles the better-sqlite3 native module ------
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles with node-gyp when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# package.json carries `allowScripts` (better-sqlite3's install script must run); npm ci
# honours it on npm versions that gate install scripts and runs all of them on older ones.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json rolldown.config.ts ./
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && node -e "require('better-sqlite3')(':memory:').close()"
# The container's default config: the shipped one, with its rules beside it and the state
# on the volume (the script fails the build if the shipped config no longer fits it).
COPY config ./config
COPY rules ./rules
COPY scripts/container-config.sh ./scripts/
RUN sh scripts/container-config.sh /out/etc/avawatch

# ---- run: no compiler, no dev dependencies, non-root, state on a volume ----------------
FROM ${NODE_IMAGE}
# NODE_OPTIONS and MALLOC_ARENA_MAX: less resident memory for the same work (BENCHMARKS.md).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=2 \
    MALLOC_ARENA_MAX=2 \
    AVAWATCH_CONFIG=/etc/avawatch/avawatch.yaml \
    AVAWATCH_LISTEN=0.0.0.0:9464
WORKDIR /app
# The package layout (dist/, config/, rules/ beside package.json), as `npm install -g` gives.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/rules ./rules
COPY --from=build /out/etc/avawatch /etc/avawatch
RUN mkdir -p /var/lib/avawatch && chown node:node /var/lib/avawatch
USER node
WORKDIR /var/lib/avawatch
VOLUME /var/lib/avawatch
EXPOSE 9464
# /readyz: config loaded, state file open, no rule failing for health.failingAfter evaluations.
# Plain node (the slim image has no curl); the port follows AVAWATCH_LISTEN.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const port = (process.env.AVAWATCH_LISTEN || ':9464').split(':').pop(); fetch('http://127.0.0.1:' + port + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The daemon stops cleanly on SIGTERM within 10 s (give `docker stop -t 15`); SIGHUP reloads.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["run"]
