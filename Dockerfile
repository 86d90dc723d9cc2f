# etalake's image: the README's build command in a Go image, then the binary
# alone on a distroless base that has what it needs at run time (glibc and
# libstdc++ for DuckDB, CA certificates for the provider's https URLs).
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t registry.example.com/etalake:TAG .
#
# Both stages are Debian 12 (bookworm), so the binary runs on the glibc and
# libstdc++ it was linked against.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first: a change of the code alone reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# cgo builds DuckDB's bindings (the golang image has gcc); -tags duckdb_arrow
# is part of every build (README).
RUN CGO_ENABLED=1 go build -tags duckdb_arrow -trimpath -ldflags "-X main.version=${VERSION}" -o /out/etalake .
# The runtime stage's working directory, empty here: distroless has no
# shell to make it, so it is copied in with its owner.
RUN mkdir -p /out/work

# cc: glibc, libstdc++ and libgcc_s (what the binary links), CA
# certificates, tzdata, and the nonroot user (uid 65532).
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/etalake /usr/local/bin/etalake
# A working directory the image's user (uid 65532) owns: `etalake demo`
# writes ./etalake-demo there; in / it could not (mkdir /etalake-demo:
# permission denied). Copied before WORKDIR, which would make it root's.
COPY --from=build --chown=65532:65532 /out/work /work
WORKDIR /work
USER nonroot
ENTRYPOINT ["/usr/local/bin/etalake"]
# `docker run IMAGE` runs the demo; any other command replaces it.
CMD ["demo"]
