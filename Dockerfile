# syntax=docker/dockerfile:1

# Node 26, the current LTS line (Node 20 left maintenance on 2026-04-30). CI runs the test suite
# on Node 20, the lowest version package.json's engines allows.

# Build: install every dependency and compile TypeScript to dist/ (entry dist/src/server.js).
FROM node:26-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only.
FROM node:26-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Runtime: compiled code, production node_modules, the API description served at
# GET /openapi.yaml (found next to the project root, /app/openapi.yaml) and the example configs.
FROM node:26-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json openapi.yaml ./
COPY configs ./configs
# The image's own non-root user (node, uid 1000), numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 4000
# Arguments after the image name (docker run, or a container's args in Kubernetes) go to the
# server: `--config /app/configs/llmd-clean.yaml`, the file alone, or `--help`.
ENTRYPOINT ["node", "dist/src/server.js"]
