# The task server as a container: `node dist/server.js`, non-root, data in the /data volume.
# Build: docker build -t fleet-task-server .    Run: see compose.yaml and README "Deploying".

# --- build: all dependencies, the bundles, then only what runs is kept ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

# --- run ---
FROM node:24-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc's malloc arenas (up to 8 per core) each keep what they once held;
# two keep the runner's native memory flat under load (docs/operations.md "Memory")
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=3876 \
    DATA_DIR=/data \
    CRON_MANAGER_PORT=0
WORKDIR /app
# node_modules: the embedded PostgreSQL binaries (used when DATABASE_URL is unset) are not bundled
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3876
# HOST=0.0.0.0 is not loopback: the server refuses to start without DASHBOARD_AUTH_TOKEN
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3876) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
