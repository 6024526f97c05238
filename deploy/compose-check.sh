#!/usr/bin/env bash
# Checks the Docker Compose deployment end to end on a Debian 12 machine, with Debian's own
# engine (docker.io 20.10) and compose v1 (docker-compose 1.29), and compose v2 (`docker
# compose`) as well where it is installed. Each phase prints its time:
#   install    docker.io, docker-compose (and debootstrap) when missing
#   engine     starts dockerd when it is not running
#   base       debian:12 and debian:12-slim: pulled, or, when no registry answers, made here by
#              debootstrap from this machine's apt sources (a few minutes, no registry needed)
#   build      the two images (docker-compose.yml's build), and their sizes (target: 200 MB each);
#              with COMPOSE_CHECK_BUILD=0, the images on this machine and their sizes
#   up         up -d --scale worker=4, until the orchestrator and 4 workers are healthy
#   submit     build/bin/cosimo submit examples/car.json --wait from this host, and its results
#   restart    restart orchestrator: the job's results are still there (the data volume)
#   scale      to 2 workers and to 6, a job each time
#   tls        the secured variant (docker-compose.tls.yml) with certificates made as in
#              docs/deployment.md, in a temporary folder (./certs is not touched)
#   down       removes the check's containers, network and volume
# It runs as its own compose project (cosimo-check), so a deployment named cosimo on this
# machine is left alone, but it needs port 7700 free.
#
# Usage: deploy/compose-check.sh      (as root, or with sudo; about 9 minutes on two free cores,
#                                      7 of them the image build: docs/deployment.md)
# Environment:
#   COMPOSE_CHECK_BUILD=0 no image build: the images cosimo-orchestrator:latest and
#                         cosimo-worker:latest on this machine are checked (when the sources
#                         have not changed since they were built: any change to the tree, a
#                         document too, makes `compose build` compile everything again)
#   COMPOSE_CHECK_TOOLS   which compose to run, space-separated: "v1 v2" (default: v1, and v2
#                         when `docker compose` works)
#   COMPOSE_CHECK_BUILD_NETWORK=host  the image build's RUN steps use the host's network: for
#                         machines (VMs, sandboxes) where containers cannot reach the apt mirror
#                         through Docker's bridge; start dockerd with DOCKERD_ARGS=--iptables=false
#                         there too if iptables cannot be set up (the bridge between the
#                         containers and the published port work without it)
#   DOCKERD_ARGS          extra arguments for dockerd when this script starts it
#   COSIMO                the client (default build/bin/cosimo; built with deploy/build.sh when
#                         missing)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
check_name=compose-check
project=cosimo-check
compose_cmd=()
tls_files=()
# shellcheck source=deploy/lib/checks.sh
source "$root/deploy/lib/checks.sh"
# Run by finish (the EXIT trap): leaves nothing of the check running, whatever failed.
cleanup() {
  if [ ${#compose_cmd[@]} -gt 0 ]; then
    "${compose_cmd[@]}" "${tls_files[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
}
trap finish EXIT

install_tools() {
  # openssl: the TLS phase's certificates.
  install_missing dockerd:docker.io docker-compose:docker-compose openssl:openssl
  use_engine_client
}

# ---------------------------------------------------------------------------- compose helpers
# compose_for v1|v2: sets compose_cmd, the command with the check's project name and files.
compose_for() {
  local files=(-f docker-compose.yml)
  if [ "${COMPOSE_CHECK_BUILD_NETWORK:-}" = host ]; then
    cat >"$work/build-network.yml" <<'EOF'
services:
  orchestrator: {build: {network: host}}
  worker: {build: {network: host}}
EOF
    files+=(-f "$work/build-network.yml")
  fi
  compose_cmd=()
  if [ -n "$SUDO" ]; then compose_cmd+=("$SUDO"); fi
  case "$1" in
    v1) compose_cmd+=(docker-compose) ;;
    v2) compose_cmd+=(docker compose) ;;
    *) log "COMPOSE_CHECK_TOOLS: '$1' is not v1 or v2"; return 1 ;;
  esac
  compose_cmd+=(-p "$project" "${files[@]}")
  # The TLS phase adds its files here.
  tls_files=()
}
compose() { "${compose_cmd[@]}" "${tls_files[@]}" "$@"; }

# wait_healthy N: until the orchestrator and exactly N workers of the project report healthy.
wait_healthy() {
  local want="$1" deadline=$((SECONDS + 180)) orch workers
  while true; do
    orch="$($SUDO docker ps --filter "label=com.docker.compose.project=$project" \
      --filter label=com.docker.compose.service=orchestrator --filter health=healthy -q | wc -l)"
    workers="$($SUDO docker ps --filter "label=com.docker.compose.project=$project" \
      --filter label=com.docker.compose.service=worker --filter health=healthy -q | wc -l)"
    if [ "$orch" -eq 1 ] && [ "$workers" -eq "$want" ]; then return 0; fi
    if [ $SECONDS -ge $deadline ]; then
      log "after 180 s: orchestrator healthy $orch/1, workers healthy $workers/$want"
      compose ps >&2 || true
      compose logs --tail 20 >&2 || true
      return 1
    fi
    sleep 2
  done
}

# ---------------------------------------------------------------------------- phases
build_images() {
  if [ "${COMPOSE_CHECK_BUILD:-1}" = 0 ]; then
    log "COMPOSE_CHECK_BUILD=0: the images on this machine, made $($SUDO docker image inspect \
      -f '{{.Created}}' cosimo-worker:latest)"
  else
    compose build
  fi
  local mb
  for image in cosimo-orchestrator:latest cosimo-worker:latest; do
    mb="$(image_mb "$image")"
    log "$image: $mb MB"
    [ "$mb" -le 200 ] || fail "$image is $mb MB (target: at most 200)"
  done
}
up_four() { compose up -d --no-build --scale worker=4 && wait_healthy 4; }
restart_keeps_results() {
  compose restart orchestrator
  wait_healthy 4
  "$COSIMO" results "$(cat "$work/first.job")" --orchestrator localhost:7700 \
    --out "$work/after-restart.csv"
  cmp "$work/first.csv" "$work/after-restart.csv"
}
scale_to() {
  compose up -d --no-build --no-recreate --scale worker="$1"
  wait_healthy "$1"
  run_job "scaled-$1"
}
# make_certs (deploy/lib/checks.sh), and an override that points the compose secrets at them.
make_certs_and_secrets() {
  make_certs
  {
    # A service key, or compose v1 reads a file of top-level secrets only as the legacy version
    # 1 format and refuses to merge it with the others ("Version mismatch").
    echo "services:"
    echo "  orchestrator: {}"
    secrets_override
  } >"$work/tls-secrets.yml"
}
tls_variant() {
  make_certs_and_secrets
  tls_files=(-f docker-compose.tls.yml -f "$work/tls-secrets.yml")
  compose up -d --no-build --scale worker=2
  wait_healthy 2
  run_job tls --tls-ca "$work/certs/ca.pem" --token-file "$work/certs/token"
  refuses_plain_and_tokenless
}
down_all() {
  compose down -v --remove-orphans
  tls_files=()
}

# One full run with compose v1 or v2 (the images are built once, by the first).
check_with() {
  local version="$1"
  compose_for "$version"
  log "with $("${compose_cmd[@]}" version --short 2>/dev/null || echo "$version")"
  if [ "$built" = 0 ]; then
    phase "$version build" build_images
    built=1
  fi
  phase "$version up" up_four
  phase "$version submit" run_job first
  phase "$version restart" restart_keeps_results
  phase "$version scale 2" scale_to 2
  phase "$version scale 6" scale_to 6
  phase "$version down" down_all
  phase "$version tls" tls_variant
  phase "$version tls down" down_all
}

phase install install_tools
phase engine start_engine
phase port port_free 7700
phase base make_base_images
phase client prepare_client
tools="${COMPOSE_CHECK_TOOLS:-v1}"
if [ -z "${COMPOSE_CHECK_TOOLS:-}" ] && $SUDO docker compose version >/dev/null 2>&1; then
  tools="v1 v2"
fi
built=0
for version in $tools; do
  check_with "$version"
done
# finish (the EXIT trap) prints the phase times and the verdict.
