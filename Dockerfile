# syntax=docker/dockerfile:1

# Build: a static binary (no cgo), so the final image needs no libc.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/workspaced ./cmd/workspaced

# Run: distroless static holds CA certificates, tzdata and a nonroot user, nothing else.
# It has no PostgreSQL binaries, so the zero-config private database (store/pglaunch) is
# not available here: set DATABASE_URL (docker-compose.yml does).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/workspaced /workspaced
USER nonroot:nonroot
# Listen on every interface inside the container; publish the port to choose who reaches it.
# With no PUBLIC_URL the origin is http://localhost:8080 (a loopback origin, fine for a
# published port on this machine); anywhere else set PUBLIC_URL=https://... (see
# docs/operations.md), as the service refuses a non-loopback http origin.
ENV LISTEN_ADDR=:8080
# ACME certificates (ACME_DOMAINS) are cached here; mount a volume to keep them.
ENV DATA_DIR=/home/nonroot/data
EXPOSE 8080
# The image has no shell or curl: the binary asks its own /readyz.
HEALTHCHECK --interval=10s --timeout=6s --start-period=30s --retries=3 CMD ["/workspaced", "healthcheck"]
ENTRYPOINT ["/workspaced", "serve"]
