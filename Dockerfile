# syntax=docker/dockerfile:1
# Portico's image: a build stage compiles TypeScript to dist/, the runtime stage holds dist/, the
# production dependencies, the access policy, the configuration defaults and the mail templates, and runs as a non-root
# user. test/deploy/dockerfile.test.ts checks this file; test/deploy/productionStart.test.ts runs its
# start path (npm ci --omit=dev, migrate, users:create, server) without a container engine.
#
#   docker build -t portico:0.1.0 .
#   docker run --rm -p 8080:8080 -e SVC_ENV=production -e SVC_JWT_SECRET=… -e SVC_MAIL_SMTP_URL=smtp://… portico:0.1.0

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Dependencies first (a layer that changes only with the lock). --ignore-scripts skips the
# package's own postinstall build (the sources are not copied yet); the build runs below.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY tools/copy-assets.mjs tools/copy-assets.mjs
COPY src src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Production dependencies only, without install scripts: the postinstall would run the TypeScript
# build (dist/ comes from the build stage instead), and bcrypt needs none — it loads its prebuilt
# binary (prebuilds/linux-x64/bcrypt.glibc.node) through node-gyp-build at run time.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist dist
COPY policy policy
COPY config config
# The account e-mails' templates (mail.templates); mount another folder over it to change the wording.
COPY mail mail
# data/ holds the SQLite file when database.url is left at its default, and data/files the local
# storage engine's files (a volume mounted there starts owned by the service user too).
RUN mkdir -p data/files && chown -R 1000:1000 data
# The official image's `node` user, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# 8080: the API (server.port); 9464: Prometheus metrics (metrics.port).
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main/server.js"]
