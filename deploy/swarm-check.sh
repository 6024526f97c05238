#!/usr/bin/env bash
# Checks the Docker Swarm deployment (deploy/swarm/stack.yml) end to end on one Debian 12
# machine with Debian's own engine (docker.io 20.10). Each phase prints its time:
#   install    docker.io (and debootstrap, openssl, curl) when missing
#   engine     starts dockerd when it is not running
#   base       debian:12 and debian:12-slim, pulled or made by debootstrap (deploy/lib/checks.sh)
#   images     cosimo-orchestrator:latest and cosimo-worker:latest: the ones on this machine (a
#              compose check or `docker build` made them), else built from deploy/Dockerfile
#   client     build/bin/cosimo
#   engine 2   a second node on this machine: a second dockerd in a network namespace of its
#              own (and host name), joined to this one by a veth pair (10.231.0.1 here, .2
#              there), the worker image loaded into it (docs/deployment.md, "A second node on
#              one machine"); SWARM_CHECK_NODES=1 leaves it out
#   init       `docker swarm init` (when this engine is in no swarm), this node labelled
#              cosimo.orchestrator=true, an overlay network made and removed, the second node
#              joined as a worker node
#   deploy     `docker stack deploy` of stack.yml, until the orchestrator is healthy and its
#              /metrics counts 2 workers attached
#   submit     the car example from this host, its results checked
#   scale 6    `docker service scale ..._worker=6`, 6 attached (with two nodes, on both), a
#              long job run (the reference)
#   scale 2    back to 2, 2 attached, a job
#   orchestrator killed  its container killed (docker kill); Swarm starts another on the same
#              node and volume; the first job's results read again, the same bytes
#   autoscale  workers scaled to 0, a job submitted: deploy/swarm/autoscale.sh --once asks for a
#              worker from the gauge cosimo_units_waiting_for_slots, and the job runs
#   update     the long job again, and while it runs a rolling update of the workers to a new
#              image (the worker image with one more label): the job ends as the reference did,
#              byte for byte (it goes on, or resumes from its checkpoint on an updated worker)
#   tls        the stack deployed again with deploy/swarm/stack.tls.yml: certificates and tokens
#              made as in docs/deployment.md (in the work folder) become Docker secrets; a job
#              with TLS and the token, and a plaintext client and one without the token refused
#   rm         `docker stack rm`, the data volume removed, and the swarm left when this check
#              made it
# The stack is named cosimo-check (services cosimo-check_orchestrator, cosimo-check_worker), so a
# stack named cosimo is left alone; ports 7700 and 7780 must be free.
#
# Usage: deploy/swarm-check.sh      (as root, or with sudo)
# Environment:
#   SWARM_CHECK_BUILD=1   build the images even when they exist
#   SWARM_CHECK_BUILD_NETWORK=host  the image build's RUN steps use the host's network (as
#                         COMPOSE_CHECK_BUILD_NETWORK in deploy/compose-check.sh)
#   SWARM_CHECK_NODES     2 (default): the second node above; 1: this machine's engine alone
#   SWARM_CHECK_ADVERTISE the address `docker swarm init` advertises (default: 10.231.0.1 with
#                         the second node, 127.0.0.1 without)
#   SWARM_CHECK_LONG_STEP the long job's RK4 step (below): smaller on a faster machine, so that
#                         the job outlasts the rolling update (the check says when it did not)
#   DOCKERD_ARGS, COSIMO  as in deploy/compose-check.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
check_name=swarm-check
stack=cosimo-check
made_swarm=0
nodes="${SWARM_CHECK_NODES:-2}"
# shellcheck source=deploy/lib/checks.sh
source "$root/deploy/lib/checks.sh"
# The second node: its network namespace, the two ends of its veth pair, its engine's files.
node2_netns=cosimo-check-node2
node2_dir="$work/node2"
node2_docker=(docker -H "unix://$node2_dir/docker.sock")
# Run by finish (the EXIT trap): leaves nothing of the check running, whatever failed.
cleanup() {
  if $SUDO docker stack ls --format '{{.Name}}' 2>/dev/null | grep -qx "$stack"; then
    remove_stack >/dev/null 2>&1 || true
  fi
  $SUDO docker image rm cosimo-worker:check-update >/dev/null 2>&1 || true
  stop_node2
  if [ "$made_swarm" = 1 ]; then $SUDO docker swarm leave --force >/dev/null 2>&1 || true; fi
}
trap finish EXIT

# ---------------------------------------------------------------------------- helpers
# The value of the sample SERIES in the orchestrator's /metrics (-1 when it does not answer).
# The secured variant's port wants HTTPS and the clients' token (metrics_url, metrics_args).
metrics_url=http://localhost:7780/metrics
metrics_args=()
metric() {
  curl --silent --max-time 5 "${metrics_args[@]}" "$metrics_url" 2>/dev/null |
    awk -v series="$1" '$1 == series { v = $2 } END { print (v == "" ? -1 : v) }'
}
attached() {
  local busy idle
  busy="$(metric 'cosimo_workers{state="busy"}')"
  idle="$(metric 'cosimo_workers{state="idle"}')"
  if [ "$busy" -lt 0 ] || [ "$idle" -lt 0 ]; then echo -1; else echo $((busy + idle)); fi
}
# wait_attached N: until the orchestrator answers as healthy and counts exactly N workers.
wait_attached() {
  local want="$1" deadline=$((SECONDS + 180)) healthy
  while true; do
    healthy="$($SUDO docker ps -q --filter "label=com.docker.swarm.service.name=${stack}_orchestrator" \
      --filter health=healthy | wc -l)"
    if [ "$healthy" -eq 1 ] && [ "$(attached)" -eq "$want" ]; then return 0; fi
    if [ $SECONDS -ge $deadline ]; then
      log "after 180 s: orchestrator healthy $healthy/1, workers attached $(attached)/$want"
      $SUDO docker stack ps "$stack" --no-trunc >&2 || true
      $SUDO docker service logs --tail 20 "${stack}_orchestrator" >&2 || true
      return 1
    fi
    sleep 2
  done
}
orchestrator_container() {
  $SUDO docker ps -q --filter "label=com.docker.swarm.service.name=${stack}_orchestrator"
}
# The car example for 3000 simulated seconds (30,000 steps, as many rows), its vehicle's RK4
# step SWARM_CHECK_LONG_STEP (default 2.5e-6 s: 40,000 RK4 steps per step, about 100 s of a
# worker on this project's loaded 2-core machine), a checkpoint every 200 steps.
write_long_scenario() {
  jq --argjson h "${SWARM_CHECK_LONG_STEP:-2.5e-6}" \
    '.name = "car-long" | .stop_time = 3000 | .algorithm.checkpoint_every = 200
     | (.units[] | select(.name == "vehicle") | .solver.step) = $h' \
    examples/car.json >"$work/car-long.json"
}
# submit_long NAME: submits the long job; its id in $work/NAME.job.
submit_long() {
  "$COSIMO" submit "$work/car-long.json" --orchestrator localhost:7700 >"$work/$1.job"
}
# finish_long NAME: waits for the job of $work/NAME.job, its results in $work/NAME.csv.
finish_long() {
  local id
  id="$(cat "$work/$1.job")"
  "$COSIMO" watch "$id" --orchestrator localhost:7700 >"$work/$1.watch" 2>&1 ||
    { cat "$work/$1.watch" >&2; return 1; }
  "$COSIMO" results "$id" --orchestrator localhost:7700 --out "$work/$1.csv"
  log "$1: $(($(wc -l <"$work/$1.csv") - 1)) rows"
}
job_state() { "$COSIMO" status "$(cat "$work/$1.job")" --orchestrator localhost:7700; }
remove_stack() {
  $SUDO docker stack rm "$stack"
  # The stack's containers and network go in the background: the volume can go after them.
  local deadline=$((SECONDS + 120))
  while [ -n "$($SUDO docker ps -aq --filter "label=com.docker.stack.namespace=$stack")" ] ||
    $SUDO docker network inspect "${stack}_cosimo" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "the stack's containers or network are still there after 120 s"
      return 1
    fi
    sleep 1
  done
  $SUDO docker volume rm "${stack}_cosimo-data" >/dev/null
}

# ---------------------------------------------------------------------------- the second node
# start_node2: a second Docker engine on this machine, as another machine's would be: its own
# network namespace (reached through a veth pair), host name, data root, exec root, socket and
# containerd; the same kernel and mount namespace (dockerd needs the host's cgroup mounts, which
# `ip netns exec` would hide behind a fresh /sys). It skips the image pull a task would try
# first (DOCKER_SERVICE_PREFER_OFFLINE_IMAGE=1): no registry serves these images.
start_node2() {
  $SUDO ip netns add "$node2_netns"
  $SUDO ip link add csc-host type veth peer name csc-node
  $SUDO ip link set csc-node netns "$node2_netns"
  $SUDO ip addr add 10.231.0.1/24 dev csc-host
  $SUDO ip link set csc-host up
  $SUDO ip -n "$node2_netns" addr add 10.231.0.2/24 dev csc-node
  $SUDO ip -n "$node2_netns" link set csc-node up
  $SUDO ip -n "$node2_netns" link set lo up
  mkdir -p "$node2_dir"
  # shellcheck disable=SC2016 # expanded by the inner shell, with the arguments after it
  $SUDO env DOCKER_SERVICE_PREFER_OFFLINE_IMAGE=1 nsenter --net="/var/run/netns/$node2_netns" \
    unshare --uts sh -c 'hostname "$1" && shift && exec dockerd "$@"' sh cosimo-check-node2 \
    --data-root "$node2_dir/data" --exec-root "$node2_dir/exec" \
    -H "unix://$node2_dir/docker.sock" --pidfile "$node2_dir/docker.pid" \
    --bip 172.29.0.1/16 >"$node2_dir.log" 2>&1 &
  local deadline=$((SECONDS + 60))
  until $SUDO "${node2_docker[@]}" info >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "the second dockerd did not start; the end of its log:"
      tail -20 "$node2_dir.log" >&2 || true
      return 1
    fi
    sleep 1
  done
  # Its images, as `docker save | ssh NODE docker load` would bring them.
  $SUDO docker save cosimo-worker:latest | $SUDO "${node2_docker[@]}" load -q >/dev/null
}
# stop_node2: the second engine stopped (by its pid: it unmounts its containers' file systems),
# out of the swarm, its namespace and files gone. Quiet, and harmless when it never started.
stop_node2() {
  local pid
  if [ -S "$node2_dir/docker.sock" ]; then
    $SUDO "${node2_docker[@]}" swarm leave --force >/dev/null 2>&1 || true
  fi
  if pid="$(cat "$node2_dir/docker.pid" 2>/dev/null)" && [ -n "$pid" ]; then
    $SUDO kill "$pid" 2>/dev/null || true
    for _ in $(seq 60); do
      $SUDO kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
  fi
  $SUDO ip netns delete "$node2_netns" 2>/dev/null || true
  $SUDO ip link delete csc-host 2>/dev/null || true  # and the other end with it
  $SUDO rm -rf "$node2_dir" "$node2_dir.log"
}
# The nodes running a task of SERVICE now.
nodes_of() {
  local task
  for task in $($SUDO docker service ps -q --filter desired-state=running "$1"); do
    $SUDO docker inspect -f '{{.NodeID}}' "$task"
  done | sort -u
}

# ---------------------------------------------------------------------------- phases
install_tools() {
  # openssl: the TLS phase's certificates.
  install_missing dockerd:docker.io curl:curl jq:jq openssl:openssl
  use_engine_client
}
images() {
  local image target build_args=()
  if [ "${SWARM_CHECK_BUILD_NETWORK:-}" = host ]; then build_args+=(--network host); fi
  for target in orchestrator worker; do
    image="cosimo-$target:latest"
    if [ "${SWARM_CHECK_BUILD:-0}" = 1 ] || ! $SUDO docker image inspect "$image" >/dev/null 2>&1; then
      $SUDO docker build "${build_args[@]}" -f deploy/Dockerfile --target "$target" -t "$image" .
    fi
    log "$image: $(image_mb "$image") MB, made $($SUDO docker image inspect -f '{{.Created}}' "$image")"
  done
}
init_swarm() {
  local node
  local advertise=127.0.0.1
  if [ "$nodes" = 2 ]; then advertise=10.231.0.1; fi
  if [ "$($SUDO docker info -f '{{.Swarm.LocalNodeState}}')" != active ]; then
    $SUDO docker swarm init --advertise-addr "${SWARM_CHECK_ADVERTISE:-$advertise}" >/dev/null
    made_swarm=1
  elif [ "$nodes" = 2 ]; then
    log "this engine is in a swarm already: the second node would join it; SWARM_CHECK_NODES=1"
    return 1
  fi
  node="$($SUDO docker info -f '{{.Swarm.NodeID}}')"
  $SUDO docker node update --label-add cosimo.orchestrator=true "$node" >/dev/null
  # Overlay networks need the kernel's VXLAN: found out here rather than at deploy.
  $SUDO docker network create -d overlay "${stack}-probe" >/dev/null
  $SUDO docker network rm "${stack}-probe" >/dev/null
  if [ "$nodes" = 2 ]; then
    $SUDO "${node2_docker[@]}" swarm join --token "$($SUDO docker swarm join-token -q worker)" \
      "${SWARM_CHECK_ADVERTISE:-10.231.0.1}:2377" >/dev/null
    $SUDO docker node ls >&2
  fi
}
deploy_stack() {
  # --resolve-image never: the images are this node's own, not a registry's.
  $SUDO docker stack deploy --resolve-image never -c deploy/swarm/stack.yml "$stack"
  wait_attached 2
}
scale_to() {
  $SUDO docker service scale --detach "${stack}_worker=$1" >/dev/null
  wait_attached "$1"
}
scale_six_with_reference() {
  scale_to 6
  local on
  on="$(nodes_of "${stack}_worker" | wc -l)"
  log "the 6 workers run on $on node(s)"
  if [ "$on" -ne "$nodes" ]; then
    log "expected them spread over $nodes"
    return 1
  fi
  write_long_scenario
  local start=$SECONDS
  submit_long reference
  finish_long reference
  log "the long job took $((SECONDS - start)) s without faults"
}
scale_two() {
  scale_to 2
  run_job scaled-2
}
kill_orchestrator() {
  local before after deadline=$((SECONDS + 120))
  before="$(orchestrator_container)"
  $SUDO docker kill "$before" >/dev/null
  # Swarm sees its task fail and starts a new one (restart_policy: any), on the labelled node.
  until after="$(orchestrator_container)" && [ -n "$after" ] && [ "$after" != "$before" ]; do
    if [ $SECONDS -ge $deadline ]; then
      log "no new orchestrator container after 120 s"
      return 1
    fi
    sleep 1
  done
  wait_attached 2
  "$COSIMO" results "$(cat "$work/first.job")" --orchestrator localhost:7700 \
    --out "$work/after-kill.csv"
  cmp "$work/first.csv" "$work/after-kill.csv"
}
autoscale() {
  local id deadline=$((SECONDS + 60))
  scale_to 0
  id="$("$COSIMO" submit examples/car.json --orchestrator localhost:7700)"
  until [ "$(metric cosimo_units_waiting_for_slots)" -eq 2 ]; do
    if [ $SECONDS -ge $deadline ]; then
      log "cosimo_units_waiting_for_slots is $(metric cosimo_units_waiting_for_slots), not 2"
      return 1
    fi
    sleep 1
  done
  COSIMO_WORKER_SERVICE="${stack}_worker" COSIMO_SLOTS_PER_WORKER="$(nproc)" COSIMO_MIN_WORKERS=0 \
    deploy/swarm/autoscale.sh --once
  local replicas
  replicas="$($SUDO docker service inspect -f '{{.Spec.Mode.Replicated.Replicas}}' "${stack}_worker")"
  if [ "$replicas" -ne 1 ]; then
    log "autoscale.sh scaled the workers to $replicas, not 1"
    return 1
  fi
  "$COSIMO" watch "$id" --orchestrator localhost:7700 >/dev/null
  [ "$(metric cosimo_units_waiting_for_slots)" -eq 0 ]
  scale_to 2
}
rolling_update() {
  local deadline=$((SECONDS + 60)) state
  # A new image: the worker image with one label more (no rebuild of the binaries).
  printf 'FROM cosimo-worker:latest\nLABEL org.cosimo.swarm-check="%s"\n' "$(date +%s)" |
    $SUDO docker build -q -t cosimo-worker:check-update - >/dev/null
  if [ "$nodes" = 2 ]; then
    $SUDO docker save cosimo-worker:check-update | $SUDO "${node2_docker[@]}" load -q >/dev/null
  fi
  submit_long updated
  until state="$(job_state updated)" && grep -q '^state: *RUNNING' <<<"$state"; do
    if [ $SECONDS -ge $deadline ]; then
      log "the long job did not start: $state"
      return 1
    fi
    sleep 1
  done
  sleep 5  # past its first checkpoints
  $SUDO docker service update --detach=false --quiet --image cosimo-worker:check-update \
    "${stack}_worker" >/dev/null
  # The update replaced every worker while the job ran (it did not end first).
  state="$(job_state updated)"
  log "after the update: $(grep -E '^(state|message)' <<<"$state" | tr -s ' \n' ' ')"
  if ! grep -qE '^state: *(RUNNING|QUEUED)' <<<"$state"; then
    log "the long job ended before the update did: lower SWARM_CHECK_LONG_STEP"
    return 1
  fi
  finish_long updated
  cmp "$work/reference.csv" "$work/updated.csv"
  # Whether it went on or resumed, as the orchestrator logged it.
  $SUDO docker service logs --raw "${stack}_orchestrator" 2>&1 |
    grep "job $(cat "$work/updated.job") resumes" | sed 's/^/  orchestrator: /' >&2 || true
}
tls_variant() {
  make_certs
  # The secrets' files: this run's certificates, in place of stack.tls.yml's ../../certs.
  { echo 'version: "3.8"'; secrets_override; } >"$work/tls-secrets.yml"
  $SUDO docker stack deploy --resolve-image never -c deploy/swarm/stack.yml \
    -c deploy/swarm/stack.tls.yml -c "$work/tls-secrets.yml" "$stack"
  metrics_url=https://localhost:7780/metrics
  metrics_args=(--cacert "$work/certs/ca.pem" -H "Authorization: Bearer $(cat "$work/certs/token")")
  wait_attached 2
  run_job tls --tls-ca "$work/certs/ca.pem" --token-file "$work/certs/token"
  refuses_plain_and_tokenless
}

phase install install_tools
phase engine start_engine
phase port port_free 7700 7780
phase base make_base_images
phase images images
phase client prepare_client
if [ "$nodes" = 2 ]; then phase "engine 2" start_node2; fi
phase init init_swarm
phase deploy deploy_stack
phase submit run_job first
phase "scale 6" scale_six_with_reference
phase "scale 2" scale_two
phase "orchestrator killed" kill_orchestrator
phase autoscale autoscale
phase update rolling_update
phase tls tls_variant
phase rm remove_stack
# finish (the EXIT trap) prints the phase times and the verdict.
