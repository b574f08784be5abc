# syntax=docker/dockerfile:1
# The image follows the release path (docs/operations.md, "Deploying without build tools"): the
# builder stage has the compilers and dev dependencies, builds, then prunes to the production
# packages; the runtime stage gets only what runs (bundles, content build, production
# node_modules with the better-sqlite3 addon built for this image's Node), no TypeScript, tsx,
# esbuild or compiler.

FROM node:20-bookworm AS build
# better-sqlite3 compiles its addon from source wherever its prebuilt binary cannot be downloaded.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# With a signing key given as a build secret the content is built for release (signed, no
# drafts or placeholders); without one, a development build signed with a throwaway key.
RUN --mount=type=secret,id=signing_key \
  if [ -s /run/secrets/signing_key ]; then \
    SIGNING_KEY="$(cat /run/secrets/signing_key)" npm run build:release; \
  else \
    npm run build; \
  fi \
  && rm -f dist/.dev-signing-key.json
# --omit=optional too: npm keeps TypeScript under --omit=dev alone, as an optional peer of viem.
RUN npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8787 \
  DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/bin ./bin
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# Liveness: /healthz answers while the process does and never touches Redis (route traffic on /readyz).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/index.mjs"]
