# The service as a container: compiled JavaScript (npm run build) on Node 22 LTS,
# production dependencies only, node itself as PID 1 (SIGTERM reaches the
# service, which drains and exits; no npm or tsx in between).
#
#   docker build -t agent-pay-service .
#   docker compose up            # with PostgreSQL, see compose.yaml
#
# Without X402_NETWORK the service starts its own devnet (anvil, from the
# optional npm dependency @foundry-rs/anvil-linux-amd64, linux/amd64 only):
# a demo that takes no real money. Set X402_NETWORK and X402_PAY_TO for a
# real network, on Base also CDP_API_KEY_ID/SECRET or X402_FACILITATOR_URL
# (README, Going live).
# Node 22, not 24: better-sqlite3 12 aborts the process under Node 24
# (docs/decisions/0049-a-lean-install.md).
ARG NODE_IMAGE=node:22-bookworm-slim

# Compile TypeScript (needs the dev dependencies: typescript). No install
# scripts: compiling needs no native module, so nothing is downloaded or built.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY devnet ./devnet
RUN npm run build

# Production dependencies only, installed without running any package's
# scripts; then only the install scripts package.json's allowScripts approves
# run (the native modules: a prebuilt binary when one can be fetched, else
# compiled with these tools, which stay in this stage). Denied ones, such as
# @scarf/scarf's install-time telemetry, never run, whatever the image's npm
# knows of allowScripts.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm rebuild $(node -p "Object.entries(require('./package.json').allowScripts).filter(([, allowed]) => allowed).map(([name]) => name).join(' ')") \
  && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8402 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8402
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8402)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself.
CMD ["node", "dist/src/main.js"]
