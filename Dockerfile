# Worker image of durable-subagents: `docker compose up` runs it (docker-compose.yml); so can any
# container platform, configured by environment variables (docs/configuration.md).
FROM node:20-bookworm-slim

# git: worktree isolation and the system prompt's git status; ripgrep: Grep; bubblewrap and socat: the sandbox of Bash.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ripgrep ca-certificates bubblewrap socat \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
RUN chown node:node /app
USER node

# Dependencies first, so a source change does not reinstall them (the dev ones too: the build needs TypeScript).
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY --chown=node:node . .
# The compiled dist/, as the published package runs it; then only what runs: no dev dependencies, no sources.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && rm -rf src

ENV NODE_ENV=production
CMD ["node", "bin/subagents.js", "worker"]
