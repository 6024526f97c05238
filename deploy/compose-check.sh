#!/usr/bin/env bash
# Checks the Docker Compose deployment end to end on a Debian 12 machine, with Debian's own
# engine (docker.io 20.10) and compose v1 (docker-compose 1.29), and compose v2 (`docker
# compose`) as well where it is installed. Each phase prints its time:
#   install    docker.io, docker-compose (and debootstrap) when missing
#   engine     starts dockerd when it is not running
#   base       debian:12 and debian:12-slim: pulled, or, when no registry answers, made here by
#              debootstrap from this machine's apt sources (a few minutes, no registry needed)
#   build      the two images (docker-compose.yml's build), and their sizes (target: 200 MB each)
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
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
project=cosimo-check
work="$(mktemp -d /tmp/cosimo-compose-check.XXXXXX)"
failures=()
times=()
current_phase=""
phase_start=0
compose_cmd=()
tls_files=()

log() { echo "compose-check: $*" >&2; }
fail() { log "FAIL: $*"; failures+=("$*"); }
# phase NAME COMMAND...: runs the command and prints its time. Called plainly (not in an `if`,
# where bash would ignore set -e inside it), so a failing step stops the run: the later phases
# depend on it; the EXIT trap then names the phase that failed.
phase() {
  current_phase="$1"
  phase_start=$SECONDS
  shift
  log "== $current_phase"
  "$@"
  times+=("$current_phase: $((SECONDS - phase_start)) s")
  log "== ${times[-1]}"
  current_phase=""
}
finish() {
  local status=$?
  if [ -n "$current_phase" ]; then
    times+=("$current_phase: FAILED after $((SECONDS - phase_start)) s")
    failures+=("phase $current_phase")
  fi
  # Leaves nothing of the check running, whatever failed.
  if [ ${#compose_cmd[@]} -gt 0 ]; then
    "${compose_cmd[@]}" "${tls_files[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  log "phase times:"
  for t in "${times[@]}"; do log "  $t"; done
  if [ ${#failures[@]} -eq 0 ] && [ "$status" -eq 0 ]; then
    log "all checks passed"
  else
    log "failed: ${failures[*]:-exit status $status}"
    [ "$status" -ne 0 ] || status=1
  fi
  exit "$status"
}
trap finish EXIT

# ---------------------------------------------------------------------------- install
install_tools() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v openssl >/dev/null || missing+=(openssl)  # the TLS phase's certificates
  [ ${#missing[@]} -eq 0 ] && return 0
  # docker.io brings containerd, runc and iptables (its Depends); no Recommends (git, apparmor).
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# ---------------------------------------------------------------------------- engine
start_engine() {
  if $SUDO docker info >/dev/null 2>&1; then return 0; fi
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl start docker || true
  fi
  if ! $SUDO docker info >/dev/null 2>&1; then
    # No systemd (a container, a sandbox VM): dockerd in the background, its log in the work
    # folder's parent so that it outlives this run's cleanup.
    log "starting dockerd ${DOCKERD_ARGS:-} (log: /tmp/cosimo-dockerd.log)"
    # shellcheck disable=SC2086 # DOCKERD_ARGS is a list of arguments
    $SUDO nohup dockerd ${DOCKERD_ARGS:-} >/tmp/cosimo-dockerd.log 2>&1 &
  fi
  local deadline=$((SECONDS + 60))
  until $SUDO docker info >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "dockerd did not start; the end of its log:"
      tail -20 /tmp/cosimo-dockerd.log >&2 || true
      return 1
    fi
    sleep 1
  done
}

# ---------------------------------------------------------------------------- base images
# The Debian repositories this machine's apt uses (its mirror or proxy), as one-line sources.
debian_sources() {
  # shellcheck disable=SC2016 # $(REPO_URI) ... are apt's format fields, not shell
  apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(ORIGIN)' \
      'Created-By: Packages' |
    awk '$4 == "Debian" && $2 ~ /^bookworm/ { print "deb " $1 " " $2 " " $3 }' | sort -u
}
make_base_images() {
  local need=()
  for image in debian:12 debian:12-slim; do
    $SUDO docker image inspect "$image" >/dev/null 2>&1 || need+=("$image")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  for image in "${need[@]}"; do
    if timeout 120 $SUDO docker pull -q "$image" >/dev/null 2>&1; then
      continue
    fi
    log "$image: no registry answered; making it with debootstrap"
    make_base_image_debootstrap "$image"
  done
}
# make_base_image_debootstrap debian:12|debian:12-slim: a minbase Debian 12, as the official
# images are (debuerreotype's minbase), with this machine's apt sources; -slim also leaves out
# documentation, manual pages and locales the way the official slim image does (dpkg excludes).
make_base_image_debootstrap() {
  local image="$1" rootfs="$work/rootfs-${1#debian:}" sources mirror valid_until
  command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends debootstrap
  sources="$(debian_sources)"
  mirror="$(awk '$3 == "bookworm" { print $2; exit }' <<<"$sources")"
  if [ -z "$mirror" ]; then
    log "no Debian bookworm repository in this machine's apt sources"
    return 1
  fi
  # One debootstrap (about 1.5 minutes, little CPU) serves both images.
  if [ ! -d "$work/rootfs" ]; then
    $SUDO nice -n 19 debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" \
      >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; return 1; }
  fi
  $SUDO cp -a "$work/rootfs" "$rootfs"
  printf '%s\n' "$sources" | $SUDO tee "$rootfs/etc/apt/sources.list" >/dev/null
  # A snapshot mirror's Release files are past their Valid-Until: carry this machine's setting
  # (only that one; no other apt configuration, which may hold credentials).
  valid_until="$(apt-config dump Acquire::Check-Valid-Until | sed -n 's/^Acquire::Check-Valid-Until "\(.*\)";$/\1/p')"
  if [ -n "$valid_until" ]; then
    echo "Acquire::Check-Valid-Until \"$valid_until\";" |
      $SUDO tee "$rootfs/etc/apt/apt.conf.d/99check-valid-until" >/dev/null
  fi
  if [ "$image" = debian:12-slim ]; then
    $SUDO tee "$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" >/dev/null <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/groff/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/*
EOF
    $SUDO find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    $SUDO rm -rf "$rootfs"/usr/share/{man,info,groff,linda,lintian}/*
    $SUDO find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias \
      -exec rm -rf {} +
  fi
  # debootstrap keeps the .deb files it installed (about 30 MB) and apt's lists.
  $SUDO rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/var/cache/apt/*.bin "$rootfs"/tmp/*
  # /dev, /proc and /sys are the engine's to provide.
  $SUDO tar -C "$rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' \
      --exclude='./sys/*' -c . |
    $SUDO docker import --change 'CMD ["bash"]' - "$image" >/dev/null
  $SUDO rm -rf "$rootfs"
  log "$image: $(image_mb "$image") MB"
}

image_mb() { echo $(($($SUDO docker image inspect -f '{{.Size}}' "$1") / 1000000)); }

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

# run_job NAME [client flags...]: submits the car example from this host and waits; its job id
# in $work/NAME.job and its results in $work/NAME.csv, checked.
run_job() {
  local name="$1"
  shift
  "$COSIMO" submit examples/car.json --orchestrator localhost:7700 "$@" --wait \
    >"$work/$name.out" || { cat "$work/$name.out" >&2; return 1; }
  head -1 "$work/$name.out" >"$work/$name.job"
  "$COSIMO" results "$(cat "$work/$name.job")" --orchestrator localhost:7700 "$@" \
    --out "$work/$name.csv"
  check_results "$work/$name.csv"
}
# The car example's results: its header, and one row per 0.1 s from 0 to 10 s.
check_results() {
  local rows
  if [ "$(head -1 "$1")" != "time,vehicle.v,controller.F" ]; then
    log "$1: unexpected header: $(head -1 "$1")"
    return 1
  fi
  rows=$(($(wc -l <"$1") - 1))
  if [ "$rows" -ne 101 ]; then
    log "$1: $rows rows, expected 101"
    return 1
  fi
}

# ---------------------------------------------------------------------------- phases
build_images() {
  compose build
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
# The certificates and tokens of docs/deployment.md ("Mutual TLS between workers and
# orchestrator"), in the work folder; an override points the compose secrets at them.
make_certs() {
  local certs="$work/certs"
  mkdir -p "$certs"
  (
    cd "$certs"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=cosimo-ca -keyout ca.key \
      -out ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key \
      -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:orchestrator,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile server.ext -out server.pem 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl req -newkey rsa:2048 -nodes -subj /CN=worker-1 -keyout worker.key \
      -out worker.csr 2>/dev/null
    openssl x509 -req -in worker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile client.ext -out worker.pem 2>/dev/null
    head -c 32 /dev/urandom | base64 >token
    head -c 32 /dev/urandom | base64 >worker-token
    # Readable by the images' user (UID 10001): compose mounts each file as it is.
    chmod 644 ./*.pem ./*.key token worker-token
  )
  {
    # A service key, or compose v1 reads a file of top-level secrets only as the legacy version
    # 1 format and refuses to merge it with the others ("Version mismatch").
    echo "services:"
    echo "  orchestrator: {}"
    echo "secrets:"
    for f in ca.pem server.pem server.key worker.pem worker.key token worker-token; do
      echo "  $f: {file: $certs/$f}"
    done
  } >"$work/tls-secrets.yml"
}
tls_variant() {
  make_certs
  tls_files=(-f docker-compose.tls.yml -f "$work/tls-secrets.yml")
  compose up -d --no-build --scale worker=2
  wait_healthy 2
  run_job tls --tls-ca "$work/certs/ca.pem" --token-file "$work/certs/token"
  # Plaintext, or TLS without the token, must be refused.
  if "$COSIMO" list --orchestrator localhost:7700 >/dev/null 2>&1; then
    log "a plaintext client was served by the secured orchestrator"
    return 1
  fi
  if "$COSIMO" list --orchestrator localhost:7700 --tls-ca "$work/certs/ca.pem" >/dev/null 2>&1; then
    log "a client without the token was served by the secured orchestrator"
    return 1
  fi
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

prepare_client() {
  COSIMO="${COSIMO:-$root/build/bin/cosimo}"
  [ -x "$COSIMO" ] && return 0
  COSIMO_TEST_DEPS=0 TARGETS=cosimo "$root/deploy/build.sh" -DCOSIMO_BUILD_TESTS=OFF \
    -DCOSIMO_BUILD_BENCH=OFF
}
port_free() {
  if (exec 3<>/dev/tcp/127.0.0.1/7700) 2>/dev/null; then
    log "port 7700 is in use (a running deployment?): stop it first"
    return 1
  fi
}

phase install install_tools
phase engine start_engine
phase port port_free
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
