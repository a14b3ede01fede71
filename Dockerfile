# syntax=docker/dockerfile:1
# Build: compiles TypeScript and the better-sqlite3 native module.
FROM node:22-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Run: no compiler, non-root, state on a volume.
FROM node:22-bookworm-slim
ENV NODE_ENV=production AVAWATCH_CONFIG=/etc/avawatch/avawatch.yaml AVAWATCH_LISTEN=:9464
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config/avawatch.yaml /etc/avawatch/avawatch.yaml
COPY rules /etc/rules
RUN mkdir -p /var/lib/avawatch && chown node:node /var/lib/avawatch
USER node
VOLUME /var/lib/avawatch
WORKDIR /var/lib/avawatch
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["run"]
