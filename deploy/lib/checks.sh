# What deploy/compose-check.sh and deploy/swarm-check.sh share (sourced, not run): timed phases
# and the verdict, Debian's Docker engine (docker.io) installed and started without systemd, the
# debian:12 and debian:12-slim base images made with debootstrap when no registry answers, the
# client, and a job of the car example checked.
# The sourcing script sets, before sourcing: check_name (its name in the log) and root (the
# source tree); it defines cleanup (run at the end, whatever failed) and sets `trap finish
# EXIT`. Nothing runs here at load time but the variables below; work is the check's temporary
# folder, removed at the end.
# shellcheck shell=bash
# shellcheck disable=SC2154 # check_name and root: set by the sourcing script

work="$(mktemp -d "/tmp/cosimo-$check_name.XXXXXX")"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
failures=()
times=()
current_phase=""
phase_start=0
# docker.io's client (/usr/bin/docker) before any other on PATH: a newer client installed in
# /usr/local/bin may speak to the engine installed here (20.10) in ways it does not know.
if [ -x /usr/bin/docker ]; then PATH="/usr/bin:$PATH"; fi

log() { echo "$check_name: $*" >&2; }
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
# The EXIT trap: the script's cleanup, the phase times and the verdict (the exit status).
finish() {
  local status=$?
  if [ -n "$current_phase" ]; then
    times+=("$current_phase: FAILED after $((SECONDS - phase_start)) s")
    failures+=("phase $current_phase")
  fi
  cleanup
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

# ---------------------------------------------------------------------------- install
# install_missing COMMAND:PACKAGE...: installs, with apt, the package of each command that is
# not on PATH.
install_missing() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # docker.io brings containerd, runc and iptables (its Depends); no Recommends (git, apparmor).
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
# use_engine_client: docker.io's client first on PATH, once install_missing has installed it.
use_engine_client() {
  PATH="/usr/bin:$PATH"
  hash -r
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
    # shellcheck disable=SC2086 # SUDO: empty or one word
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

# ---------------------------------------------------------------------------- client
prepare_client() {
  COSIMO="${COSIMO:-$root/build/bin/cosimo}"
  [ -x "$COSIMO" ] && return 0
  COSIMO_TEST_DEPS=0 TARGETS=cosimo "$root/deploy/build.sh" -DCOSIMO_BUILD_TESTS=OFF \
    -DCOSIMO_BUILD_BENCH=OFF
}
# port_free PORT...: fails naming the first port of this machine that something listens on.
port_free() {
  local port
  for port in "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      log "port $port is in use (a running deployment?): stop it first"
      return 1
    fi
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

# ---------------------------------------------------------------------------- the secured variant
# make_certs: the certificates and tokens of docs/deployment.md ("Mutual TLS between workers and
# orchestrator") in $work/certs: a CA, the orchestrator's certificate (for "orchestrator",
# "localhost" and 127.0.0.1), a worker's, the clients' token and the workers'.
make_certs() {
  local certs="$work/certs"
  mkdir -p "$certs"
  (
    cd "$certs" || exit
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
}
# secrets_override: the top-level `secrets:` of a compose or stack file giving those files to
# the secured variant's secrets (docker-compose.tls.yml, deploy/swarm/stack.tls.yml).
secrets_override() {
  echo "secrets:"
  for f in ca.pem server.pem server.key worker.pem worker.key token worker-token; do
    echo "  $f: {file: $work/certs/$f}"
  done
}
# The secured orchestrator on localhost:7700 refuses a plaintext client, and a TLS client
# without the token.
refuses_plain_and_tokenless() {
  if "$COSIMO" list --orchestrator localhost:7700 >/dev/null 2>&1; then
    log "a plaintext client was served by the secured orchestrator"
    return 1
  fi
  if "$COSIMO" list --orchestrator localhost:7700 --tls-ca "$work/certs/ca.pem" >/dev/null 2>&1; then
    log "a client without the token was served by the secured orchestrator"
    return 1
  fi
}
