# vkstat's image, the one deploy/k8s runs: the vkstat binary, the Vulkan
# loader and GDAL's library. The GPU driver is not in it: on a GPU node the
# NVIDIA container toolkit mounts the driver and its Vulkan ICD (the
# variables below ask for the graphics capability, which carries Vulkan);
# elsewhere --device auto runs the CPU path.
#
#   docker build --build-arg VKSTAT_VERSION=$(scripts/version.sh) -t registry.example.org/vkstat:latest .
#   docker run --rm --gpus all registry.example.org/vkstat:latest devices
#
# Checked in CI without Docker (internal/lintcheck: it parses, what it
# copies exists, its packages match scripts/deps.sh).

# Build: Go from the official image (Debian 12's is 1.19), the headers and
# static libraries scripts/deps.sh build installs.
FROM golang:1.24-bookworm AS build
RUN apt-get update \
	&& apt-get install -y --no-install-recommends gcc g++ libc6-dev pkg-config libvulkan-dev \
		libshaderc-dev glslang-dev spirv-tools libvkfft-dev libgdal-dev \
	&& rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY cli ./cli
COPY device ./device
COPY engine ./engine
COPY formats ./formats
COPY internal ./internal
COPY outputs ./outputs
COPY partials ./partials
COPY pipelines ./pipelines
COPY shaderlab ./shaderlab
COPY shaders ./shaders
COPY suite ./suite
COPY survey ./survey
COPY tensor ./tensor
COPY workloads ./workloads
COPY VERSION ./
ARG VKSTAT_VERSION
RUN version=${VKSTAT_VERSION:-$(cat VERSION)} \
	&& go build -trimpath -ldflags "-s -w -X github.com/vkstat/vkstat/cli.Version=$version" -o /out/vkstat ./cmd/vkstat \
	&& /out/vkstat --version

# Run: the loader (libvulkan1) and the GL vendor-neutral libraries the
# NVIDIA Vulkan driver needs (without them it fails with
# VK_ERROR_INCOMPATIBLE_DRIVER), GDAL for rasters (loaded when a command
# opens one), nothing else.
FROM debian:bookworm-slim
RUN apt-get update \
	&& apt-get install -y --no-install-recommends libstdc++6 libvulkan1 libglvnd0 libegl1 libgl1 libglx0 \
		libgles2 libopengl0 libgdal32 \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /out/vkstat /usr/local/bin/vkstat
COPY LICENSE /usr/share/doc/vkstat/LICENSE
ENV NVIDIA_VISIBLE_DEVICES=all \
	NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics
ENTRYPOINT ["vkstat"]
CMD ["devices"]
