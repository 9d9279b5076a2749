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
ENV LISTEN_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/workspaced", "serve"]
