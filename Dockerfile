# syntax=docker/dockerfile:1
# One image for `crondeck serve`, `crondeck controller` and `crondeck run` (the CronJob pods).
# Build: npm run image   (docker build -t ghcr.io/crondeck/crondeck:<version> .)

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: all dependencies, compile, then prune to production dependencies -------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# `npm install`, not `npm ci`: docs/development.md says why the lock file refuses `npm ci`.
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- runtime: node 24, dist/, production node_modules, and the tools job commands expect --------
FROM ${NODE_IMAGE} AS runtime
# sh and coreutils come with the base image; curl and a PostgreSQL client for job commands,
# tzdata for time zones; tini forwards signals to `crondeck serve` and `crondeck controller` and
# reaps the orphans of the commands the local runtime runs. Job pods name their command, so there
# `crondeck run` is the process the kubelet signals (it stops the attempt on SIGTERM).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl postgresql-client tzdata tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 crondeck \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin crondeck
WORKDIR /app
# A young generation of 2 MB semi-spaces (Node's default is 16 MB and more): idle after load the
# service then holds about half the memory, with reads as fast (BENCHMARKS.md, memory).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=2 \
    HOME=/tmp \
    SERVICE_DATA_DIR=/tmp/data
# version.ts reads /app/package.json; the dashboard serves its files from src/dashboard/assets.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY src/dashboard/assets ./src/dashboard/assets
# `crondeck` on the PATH is package.json's bin (dist/cli.js), so default job commands can call it.
# --liftoff-only keeps the embedded database's WebAssembly on V8's baseline compiler (110 MB less
# on Node 24, which takes it neither from NODE_OPTIONS nor from the service at run time).
RUN printf '#!/bin/sh\nexec node --liftoff-only /app/dist/cli.js "$@"\n' > /usr/local/bin/crondeck \
 && chmod 0755 /usr/local/bin/crondeck
# Nothing is written outside /tmp: the chart mounts an emptyDir there on a read-only root.
USER 65532:65532
EXPOSE 7433 8081
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/crondeck"]
# `::`: every address of both families, or IPv4 alone where the kernel has no IPv6.
CMD ["serve", "--host", "::"]
