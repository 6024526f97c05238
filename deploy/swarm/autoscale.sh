#!/usr/bin/env bash
# Scales the workers' Swarm service to the demand the orchestrator's /metrics shows: a recipe
# for Swarm, which has no autoscaler of its own (docs/deployment.md, "Many machines"). Run it on
# a manager node, in a loop (the default) or once (--once, e.g. from cron or a systemd timer).
#
#   cosimo_units_waiting_for_slots  units of the queued jobs, one worker slot each
#   cosimo_workers{state="busy"}    workers running a job
#
# Up: while units wait, the service gets the busy workers plus enough workers for the waiting
# units (COSIMO_SLOTS_PER_WORKER slots each), at most COSIMO_MAX_WORKERS. Down: only when nothing
# waits and no worker is busy, to COSIMO_MIN_WORKERS; Swarm picks which tasks to stop, so
# scaling down while a job runs could stop its worker (the job would resume from its checkpoint,
# but would lose the time since). Never below the attached workers' demand, never in a loop of
# its own making: the target is computed afresh each time, not added to.
#
# Usage: deploy/swarm/autoscale.sh [--once]
# Environment (defaults):
#   COSIMO_METRICS_URL        http://localhost:7780/metrics  (stack.yml publishes 7780 on the
#                             orchestrator's node; https://... with stack.tls.yml)
#   COSIMO_TLS_CA             the CA of an https:// orchestrator
#   COSIMO_TOKEN_FILE         the clients' token, for an orchestrator started with --token-file
#   COSIMO_WORKER_SERVICE     cosimo_worker (the stack "cosimo"'s worker service)
#   COSIMO_SLOTS_PER_WORKER   1 (stack.yml gives each worker one slot per CPU of its node: say
#                             how many your worker nodes have)
#   COSIMO_MIN_WORKERS        1
#   COSIMO_MAX_WORKERS        16
#   COSIMO_AUTOSCALE_INTERVAL 15 (seconds between two looks)
set -euo pipefail

url="${COSIMO_METRICS_URL:-http://localhost:7780/metrics}"
service="${COSIMO_WORKER_SERVICE:-cosimo_worker}"
slots="${COSIMO_SLOTS_PER_WORKER:-1}"
min="${COSIMO_MIN_WORKERS:-1}"
max="${COSIMO_MAX_WORKERS:-16}"
interval="${COSIMO_AUTOSCALE_INTERVAL:-15}"

log() { echo "autoscale: $*" >&2; }

# The value of the sample SERIES (its name and labels as written) in the metrics text on stdin.
sample() { awk -v series="$1" '$1 == series { print $2; found = 1 } END { exit !found }'; }

# One look: prints what it did; fails when the metrics or the service cannot be read.
scale_once() {
  local curl_args=(--silent --show-error --fail --max-time 10) text waiting busy current want
  if [ -n "${COSIMO_TLS_CA:-}" ]; then curl_args+=(--cacert "$COSIMO_TLS_CA"); fi
  if [ -n "${COSIMO_TOKEN_FILE:-}" ]; then
    curl_args+=(-H "Authorization: Bearer $(cat "$COSIMO_TOKEN_FILE")")
  fi
  text="$(curl "${curl_args[@]}" "$url")"
  waiting="$(sample cosimo_units_waiting_for_slots <<<"$text")"
  busy="$(sample 'cosimo_workers{state="busy"}' <<<"$text")"
  current="$(docker service inspect -f '{{.Spec.Mode.Replicated.Replicas}}' "$service")"
  want="$current"
  if [ "$waiting" -gt 0 ]; then
    want=$((busy + (waiting + slots - 1) / slots))
    [ "$want" -ge "$current" ] || want="$current"  # never down while units wait
  elif [ "$busy" -eq 0 ]; then
    want="$min"
  fi
  [ "$want" -le "$max" ] || want="$max"
  [ "$want" -ge "$min" ] || want="$min"
  if [ "$want" -ne "$current" ]; then
    log "units waiting $waiting, workers busy $busy: $service $current -> $want"
    docker service scale --detach "$service=$want" >/dev/null
  fi
}

if [ "${1:-}" = --once ]; then
  scale_once
  exit
fi
while true; do
  scale_once || log "this look failed; trying again in $interval s"
  sleep "$interval"
done
