#!/usr/bin/env python3
"""Checks the deployment files without a Docker engine or a cluster.

- docker-compose.yml parses and has an orchestrator service (port 7700, data volume, health
  check) and a worker service that publishes no port and dials the orchestrator by name;
- both compose files load in compose v1 (Debian 12's docker-compose 1.29) as in v2: only keys
  1.29's schema has (no top-level `name:`; .env names the project), and `config -q` passes with
  each installed docker-compose / docker compose;
- every Dockerfile target the compose file builds exists, and the build stage runs the same
  deploy/build.sh as the README;
- the runtime stage installs packages that provide every shared library the built binaries
  load (checked with ldd and dpkg against the libraries of this machine's build), and no more:
  no Recommends, no package that no binary loads, not the PETSc/OpenMPI chain; the images'
  size is estimated (debian:12-slim plus what apt would add, plus the binaries) within 200 MB;
- the Kubernetes manifests parse and name the same images, port and args;
- deploy/swarm/stack.yml (docker-compose.yml for `docker stack deploy`) names the same images,
  port, data volume and workers' dial, has nothing Swarm refuses or ignores (build,
  depends_on, restart), needs no IPVS (host-mode ports, dnsrr endpoints), pins the orchestrator,
  spreads the workers and gives them --slots from the node's CPUs;
- .dockerignore keeps build folders, results and secrets (certs/, *.pem, *.key, token files)
  out of the build context: a copy of the tree holding a foreign build/ (a CMakeCache.txt made
  for another source path), certs/ca.key, x.pem, build-foo/ and out/ is filtered by it the way
  Docker filters the context, none of those is left, and the build stage's configure step runs
  on the result;
- the images run as a numeric user (Kubernetes' runAsNonRoot needs one) that the manifests name
  as runAsUser, and every VOLUME folder is created owned by that user before it is declared (a
  new named volume copies the folder's owner; a missing folder gives a root-owned volume);
- the secured variant (docker-compose.tls.yml, deploy/swarm/stack.tls.yml,
  deploy/kubernetes-tls/) gives the orchestrator
  its certificate, the workers' CA (mutual TLS) and the tokens, and the workers their client
  certificate, the CA and their token; every file a flag names is mounted from a secret, the
  Kubernetes patches keep the base's arguments, and probes no longer speak plaintext gRPC;
- the worker's HEALTHCHECK is real: run against a worker started with the image's environment
  and arguments, it fails while no orchestrator is there and passes once one is.

Usage: check_deploy.py SOURCE_DIR BINARY_DIR
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def main(source, binary):
    compose = yaml.safe_load((source / "docker-compose.yml").read_text())
    services = compose.get("services", {})
    check("orchestrator" in services and "worker" in services,
          "docker-compose.yml: services orchestrator and worker are required")
    orch, worker = services.get("orchestrator", {}), services.get("worker", {})
    check(any("7700" in str(p) for p in orch.get("ports", [])),
          "orchestrator: port 7700 must be published")
    check(orch.get("volumes"), "orchestrator: the data directory needs a volume")
    check("healthcheck" in orch, "orchestrator: a health check is required")
    check(not worker.get("ports"), "worker: workers dial out and publish no port")
    check("orchestrator:7700" in " ".join(worker.get("command", [])),
          "worker: must dial orchestrator:7700")

    dockerfile = (source / "deploy" / "Dockerfile").read_text()
    stages = set(re.findall(r"^FROM\s+\S+\s+AS\s+(\S+)", dockerfile, re.M | re.I))
    for name, service in services.items():
        build = service.get("build", {})
        check(build.get("dockerfile") == "deploy/Dockerfile",
              f"{name}: must build from deploy/Dockerfile")
        check(build.get("target") in stages, f"{name}: Dockerfile has no stage {build.get('target')}")
    check("./deploy/build.sh" in dockerfile,
          "Dockerfile: the build stage must run deploy/build.sh (the README's build)")
    check(re.search(r"HEALTHCHECK", dockerfile), "Dockerfile: health checks are required")
    check(re.search(r"COSIMO_TEST_DEPS=0\s.*\./deploy/build\.sh", re.sub(r"\\\n", " ", dockerfile)),
          "Dockerfile: the build stage must run deploy/build.sh with COSIMO_TEST_DEPS=0 (no "
          "browser or fuzzing compiler in the image build)")
    install = (source / "deploy" / "install-deps.sh").read_text()
    test_only = install.split("COSIMO_TEST_DEPS:-1", 1)[-1]
    for package in ("chromium-headless-shell", "libclang-rt-14-dev"):
        check(package in test_only,
              f"install-deps.sh: {package} is for the tests: install it only without COSIMO_TEST_DEPS=0")

    # Runtime packages: every library the binaries need must come from a listed package or
    # from one of their dependencies (or from the base image's essential packages).
    runtime = dockerfile.split("AS runtime", 1)[1].split("FROM", 1)[0]
    listed = set(re.findall(r"\b(lib[a-z0-9+.\-]+|ca-certificates)\b", runtime))
    closure = set(listed)
    if listed:
        out = subprocess.run(
            ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
             "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *sorted(listed)],
            capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^\s*(?:\|?Depends|PreDepends):\s*<?([^\s>:]+)", line)
            if m:
                closure.add(m.group(1))
            elif re.match(r"^[a-z0-9]", line):
                closure.add(line.strip().split(":")[0])
    base = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g", "libzstd1", "liblzma5", "libbz2-1.0"}
    owners = set()
    for program in ["cosimo", "cosimo-orchestrator", "cosimo-worker"]:
        path = binary / "bin" / program
        if not path.exists():
            failures.append(f"{path} is not built")
            continue
        for line in subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout.splitlines():
            m = re.search(r"=>\s+(/\S+)", line)
            if not m:
                continue
            owner = subprocess.run(["dpkg", "-S", str(Path(m.group(1)).resolve())],
                                   capture_output=True, text=True).stdout.split(":")[0]
            if not owner:
                owner = subprocess.run(["dpkg", "-S", m.group(1)], capture_output=True,
                                       text=True).stdout.split(":")[0]
            owners.add(owner)
            check(owner in closure or owner in base,
                  f"{program} needs {m.group(1)} from package '{owner}', which the runtime "
                  "image does not install")
    check_runtime_is_small(runtime, listed, owners, source, binary)

    for manifest in (source / "deploy" / "kubernetes").glob("*.yaml"):
        docs = [d for d in yaml.safe_load_all(manifest.read_text()) if d]
        check(docs, f"{manifest.name}: no documents")
        for doc in docs:
            check("kind" in doc and "apiVersion" in doc, f"{manifest.name}: kind and apiVersion")
            if doc.get("kind") == "Deployment":
                containers = doc["spec"]["template"]["spec"]["containers"]
                for c in containers:
                    check(c["image"] in ("cosimo-orchestrator:latest", "cosimo-worker:latest"),
                          f"{manifest.name}: unexpected image {c['image']}")
                    if c["image"].startswith("cosimo-worker"):
                        check("cosimo-orchestrator:7700" in c.get("args", []),
                              f"{manifest.name}: workers must dial the orchestrator Service")

    check_compose_versions(source)
    check_swarm_stack(source, compose)
    stage_lines = dockerfile_stages(dockerfile)
    check_dockerignore(source, stage_lines)
    uid = check_user_and_volumes(stage_lines)
    check_kubernetes_user(source, uid)
    check_secured_variant(source, dockerfile)
    check_worker_healthcheck(binary, stage_lines)

    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


# What docker-compose 1.29 (Debian 12's docker-compose, compose v1) accepts in a file without a
# `version:` key, which it reads as the Compose Specification: the properties of its
# compose/config/compose_spec.json (each object there has additionalProperties false, so any
# other key, like the top-level `name:` of later versions, is refused: "'name' does not match
# any of the regexes: '^x-'"). Compose v2 accepts all of these too.
V1_TOP = {"version", "services", "networks", "volumes", "secrets", "configs"}
V1_SERVICE = {
    "blkio_config", "build", "cap_add", "cap_drop", "cgroup_parent", "command", "configs",
    "container_name", "cpu_count", "cpu_percent", "cpu_period", "cpu_quota", "cpu_rt_period",
    "cpu_rt_runtime", "cpu_shares", "cpus", "cpuset", "credential_spec", "depends_on", "deploy",
    "device_cgroup_rules", "devices", "dns", "dns_opt", "dns_search", "domainname", "entrypoint",
    "env_file", "environment", "expose", "extends", "external_links", "extra_hosts", "group_add",
    "healthcheck", "hostname", "image", "init", "ipc", "isolation", "labels", "links", "logging",
    "mac_address", "mem_limit", "mem_reservation", "mem_swappiness", "memswap_limit",
    "network_mode", "networks", "oom_kill_disable", "oom_score_adj", "pid", "pids_limit",
    "platform", "ports", "privileged", "profiles", "pull_policy", "read_only", "restart",
    "runtime", "scale", "secrets", "security_opt", "shm_size", "stdin_open", "stop_grace_period",
    "stop_signal", "storage_opt", "sysctls", "tmpfs", "tty", "ulimits", "user", "userns_mode",
    "volumes", "volumes_from", "working_dir"}
V1_NESTED = {
    "build": {"args", "cache_from", "context", "dockerfile", "extra_hosts", "isolation", "labels",
              "network", "shm_size", "target"},
    "deploy": {"endpoint_mode", "labels", "mode", "placement", "replicas", "resources",
               "restart_policy", "rollback_config", "update_config"},
    "healthcheck": {"disable", "interval", "retries", "start_period", "test", "timeout"},
}
V1_DEPENDS_CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
V1_SECRET = {"driver", "driver_opts", "external", "file", "labels", "name", "template_driver"}
V1_SERVICE_SECRET = {"source", "target", "uid", "gid", "mode"}
V1_VOLUME = {"driver", "driver_opts", "external", "labels", "name"}


def check_compose_versions(source):
    """Both compose files load in compose v1 (1.29) and v2 alike: statically against v1's schema
    above, and with each `docker-compose` / `docker compose` that is installed."""
    names = ["docker-compose.yml", "docker-compose.tls.yml"]
    for name in names:
        doc = yaml.safe_load((source / name).read_text()) or {}
        extra = lambda keys, allowed: sorted(k for k in keys if k not in allowed
                                              and not str(k).startswith("x-"))
        for key in extra(doc, V1_TOP):
            failures.append(f"{name}: top-level '{key}' is refused by docker-compose 1.29 "
                            "(compose v1, Debian 12)")
        # Optional since 1.27 in v1, obsolete in v2 (which warns about it).
        check("version" not in doc, f"{name}: no `version:` (compose v2 calls it obsolete)")
        for service_name, service in (doc.get("services") or {}).items():
            where = f"{name}: {service_name}"
            for key in extra(service, V1_SERVICE):
                failures.append(f"{where}: '{key}' is refused by docker-compose 1.29")
            for key, allowed in V1_NESTED.items():
                if isinstance(service.get(key), dict):
                    for sub in extra(service[key], allowed):
                        failures.append(f"{where}: {key}.{sub} is refused by docker-compose 1.29")
            depends = service.get("depends_on", [])
            if isinstance(depends, dict):
                for other, spec in depends.items():
                    check(isinstance(spec, dict) and set(spec) == {"condition"}
                          and spec["condition"] in V1_DEPENDS_CONDITIONS,
                          f"{where}: depends_on.{other} must be just a condition of "
                          f"{sorted(V1_DEPENDS_CONDITIONS)} for docker-compose 1.29")
            for secret in service.get("secrets", []):
                if isinstance(secret, dict):
                    for sub in extra(secret, V1_SERVICE_SECRET):
                        failures.append(f"{where}: secrets[].{sub} is refused by docker-compose 1.29")
        for section, allowed in (("secrets", V1_SECRET), ("volumes", V1_VOLUME)):
            for entry_name, entry in (doc.get(section) or {}).items():
                for sub in extra(entry or {}, allowed):
                    failures.append(f"{name}: {section}.{entry_name}.{sub} is refused by "
                                    "docker-compose 1.29")
    # The project name the files cannot carry (v1 refuses `name:`): .env, read by both.
    env = source / ".env"
    check(env.exists() and re.search(r"^COMPOSE_PROJECT_NAME=cosimo$", env.read_text(), re.M),
          ".env: COMPOSE_PROJECT_NAME=cosimo names the compose project for v1 and v2 alike")

    # The real parsers, where installed (deploy/install-deps.sh installs docker-compose for the
    # tests): `config -q` validates and merges without an engine. In a copy with empty files for
    # the TLS variant's secrets, which certs/ does not hold in a checkout.
    tools = []
    if shutil.which("docker-compose"):
        tools.append(["docker-compose"])
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"],
                                                 capture_output=True).returncode == 0:
        tools.append(["docker", "compose"])
    if not tools:
        return
    with tempfile.TemporaryDirectory(prefix="cosimo-compose-") as tmp:
        project = Path(tmp)
        for name in names + [".env", "deploy/Dockerfile"]:
            if (source / name).exists():
                (project / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source / name, project / name)
        tls = yaml.safe_load((source / "docker-compose.tls.yml").read_text())
        for secret in tls.get("secrets", {}).values():
            (project / secret["file"]).parent.mkdir(parents=True, exist_ok=True)
            (project / secret["file"]).write_text("")
        for tool in tools:
            for files in (names[:1], names):
                args = [a for f in files for a in ("-f", f)]
                result = subprocess.run(tool + args + ["config", "-q"], cwd=project,
                                        capture_output=True, text=True, timeout=120)
                check(result.returncode == 0, f"{' '.join(tool + args)} config: " +
                      (result.stderr or result.stdout).strip())


# Runtime packages that no ldd line names but the images need: the roots for TLS to a public CA,
# and the font cairo draws a plot's text with (cosimo plot, the web page's plots).
RUNTIME_DATA_PACKAGES = {"ca-certificates", "fonts-dejavu-core"}
# Libraries the programs load with dlopen when a verb or flag first needs them, so that no ldd
# line names them: package -> (soname, the source that loads it).
LOADED_ON_DEMAND = {
    "libcairo2": ("libcairo.so.2", "cli/src/cairo_api.cc"),  # PNG plots (cosimo plot)
    "libmicrohttpd12": ("libmicrohttpd.so.12", "orchestrator/src/http/mhd_api.cc"),  # --http
}
# debian:12-slim, compressed layers unpacked (docker image inspect), 2025 builds: about 75 MB.
SLIM_BASE_MB = 75
# The packages of debian:12-slim: what `debootstrap --variant=minbase bookworm` installs (its
# log's "Retrieving" lines, December 2026), as the official image's debuerreotype does.
SLIM_PACKAGES = set("""
adduser apt base-files base-passwd bash bsdutils coreutils dash debconf debian-archive-keyring
debianutils diffutils dpkg e2fsprogs findutils gcc-12-base gpgv grep gzip hostname
init-system-helpers libacl1 libapt-pkg6.0 libattr1 libaudit-common libaudit1 libblkid1
libbz2-1.0 libc-bin libc6 libcap-ng0 libcap2 libcom-err2 libcrypt1 libdb5.3 libdebconfclient0
libext2fs2 libffi8 libgcc-s1 libgcrypt20 libgmp10 libgnutls30 libgpg-error0 libhogweed6
libidn2-0 liblz4-1 liblzma5 libmd0 libmount1 libnettle8 libp11-kit0 libpam-modules
libpam-modules-bin libpam-runtime libpam0g libpcre2-8-0 libseccomp2 libselinux1
libsemanage-common libsemanage2 libsepol2 libsmartcols1 libss2 libstdc++6 libsystemd0
libtasn1-6 libtinfo6 libudev1 libunistring2 libuuid1 libxxhash0 libzstd1 login logsave mawk
mount ncurses-base ncurses-bin passwd perl-base sed sysvinit-utils tar tzdata usr-is-merged
util-linux util-linux-extra zlib1g""".split())


def apt_install_set(packages, installed):
    """What `apt-get install --no-install-recommends packages` adds to a system that has
    `installed`: the Depends and Pre-Depends, recursively, of each the first alternative (a
    virtual package: its first provider), as apt picks when none is installed."""
    chosen, todo = set(), set(packages) - set(installed)
    while todo:
        out = subprocess.run(["apt-cache", "depends", "--no-recommends", "--no-suggests",
                              "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances",
                              *sorted(todo)], capture_output=True, text=True).stdout
        chosen |= todo
        found, in_group, want_provider = set(), False, False
        for line in out.splitlines():
            if line.startswith("    "):  # a provider of the virtual package above
                if want_provider:
                    found.add(line.strip().split(":")[0])
                want_provider = False
                continue
            want_provider = False
            m = re.match(r"^ ?(\|| )(?:Depends|PreDepends): (<)?([^\s>:]+)", line)
            if not m:
                in_group = False
                continue
            alternative, virtual, name = m.group(1) == "|", m.group(2), m.group(3)
            if in_group:  # a later alternative of a group whose first one was taken
                in_group = bool(alternative)
                continue
            in_group = bool(alternative)
            if virtual:
                want_provider = True
            else:
                found.add(name)
        todo = found - chosen - set(installed)
    return chosen


def check_runtime_is_small(runtime, listed, owners, source, binary):
    """The runtime stage installs what ldd needs and no more: no Recommends, no package that no
    binary loads, nothing of the PETSc/OpenMPI chain that libsundials-sunlinsol3 pulled in (the
    image was about 490 MB with it), and an estimate of each image within 200 MB."""
    check("--no-install-recommends" in runtime,
          "Dockerfile runtime stage: apt-get install needs --no-install-recommends")
    # A base image made by debootstrap (deploy/compose-check.sh) keeps the downloaded .debs in
    # /var/cache/apt unless told otherwise: 94 MB of the first 225 MB images.
    check("apt-get clean" in runtime,
          "Dockerfile runtime stage: apt-get clean after the install (the .debs stay otherwise)")
    if not owners:
        return  # the binaries are not built: reported above
    for package, (soname, loader) in LOADED_ON_DEMAND.items():
        check(package in listed, f"Dockerfile runtime stage: {package} is not installed, but "
              f"{loader} loads {soname} from it")
        check(f'"{soname}"' in (source / loader).read_text(),
              f"{loader} no longer loads {soname}: update LOADED_ON_DEMAND")
    for package in sorted(listed - owners - RUNTIME_DATA_PACKAGES - set(LOADED_ON_DEMAND)):
        failures.append(f"Dockerfile runtime stage: {package} provides no library that the "
                        "binaries load (ldd)")
    installs = apt_install_set(listed | RUNTIME_DATA_PACKAGES | set(LOADED_ON_DEMAND),
                               SLIM_PACKAGES)
    heavy = sorted(p for p in installs if re.search(r"petsc|openmpi|libmpi|hwloc|sundials", p))
    check(not heavy, f"Dockerfile runtime stage: installs {heavy} (the PETSc/OpenMPI chain of "
          "libsundials-sunlinsol3: CVODE is linked statically instead)")
    # Their Installed-Size, on top of debian:12-slim.
    show = subprocess.run(["apt-cache", "show", "--no-all-versions", *sorted(installs)],
                          capture_output=True, text=True).stdout
    kib = sum(int(k) for k in re.findall(r"^Installed-Size: (\d+)$", show, re.M))
    # The binaries stripped, as the image's build stage does (a RelWithDebInfo build here is
    # several times larger with its debug information).
    sizes = {}
    with tempfile.TemporaryDirectory(prefix="cosimo-strip-") as tmp:
        for p in ("cosimo", "cosimo-orchestrator", "cosimo-worker"):
            if (binary / "bin" / p).exists() and subprocess.run(
                    ["strip", "-o", f"{tmp}/{p}", str(binary / "bin" / p)]).returncode == 0:
                sizes[p] = Path(f"{tmp}/{p}").stat().st_size
    for program in ("cosimo-orchestrator", "cosimo-worker"):
        if program not in sizes or "cosimo" not in sizes:
            continue
        mb = SLIM_BASE_MB + kib / 1024 + (sizes["cosimo"] + sizes[program]) / 1e6
        print(f"estimate: the {program} image is about {mb:.0f} MB ({SLIM_BASE_MB} base, "
              f"{kib / 1024:.0f} packages, the rest binaries; deploy/compose-check.sh measures it)")
        check(mb <= 200, f"the {program} image would be about {mb:.0f} MB (target: 200)")


def dockerfile_stages(dockerfile):
    """{stage: [(INSTRUCTION, arguments)]}, each stage with the instructions of the stages it is
    built FROM first (continuation lines joined, comments dropped)."""
    text = re.sub(r"\\\n", " ", dockerfile)
    stages, current = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?", rest.strip(), re.I)
            base, current = m.group(1), (m.group(2) or f"stage{len(stages)}")
            stages[current] = list(stages.get(base, []))
        elif current is not None:
            stages[current].append((word, rest.strip()))
    return stages


def dockerignore_filter(source):
    """A predicate: is this context-relative path sent to the Docker daemon? Docker's rules:
    patterns are matched against the path and each of its parent folders (a folder excluded is
    excluded whole), '**' spans folders, '!' re-includes, the last matching pattern wins."""
    path = source / ".dockerignore"
    patterns = []
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            pattern = line[1:] if negate else line
            pattern = pattern.strip().lstrip("/").rstrip("/")
            regex = ""
            i = 0
            while i < len(pattern):
                if pattern.startswith("**/", i):
                    regex += "(?:.*/)?"
                    i += 3
                elif pattern.startswith("**", i):
                    regex += ".*"
                    i += 2
                elif pattern[i] == "*":
                    regex += "[^/]*"
                    i += 1
                elif pattern[i] == "?":
                    regex += "[^/]"
                    i += 1
                else:
                    regex += re.escape(pattern[i])
                    i += 1
            patterns.append((re.compile(regex + r"\Z"), negate))

    def included(relative):
        parts = relative.split("/")
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        keep = True
        for regex, negate in patterns:
            if any(regex.match(p) for p in prefixes):
                keep = negate
        return keep

    return included


# Secrets that docs/deployment.md's TLS steps make in certs/, and such files anywhere else: the
# build context must never carry them (a layer or a build cache keeps what it was sent).
SECRETS = ["certs/ca.key", "certs/ca.pem", "certs/ca.srl", "certs/server.key", "certs/server.csr",
           "certs/worker.key", "certs/token", "certs/worker-token", "certs/tokens", "x.pem",
           "deploy/x.key", "token", "worker-token", "tokens", "secrets/ci.token", ".env"]


def check_dockerignore(source, stages):
    included = dockerignore_filter(source)
    # What a user's tree holds after the quick start and a few runs, beside the sources.
    foreign = ["build/CMakeCache.txt", "build/bin/cosimo", "build-asan/CMakeCache.txt",
               "build-foo/x.o", "build_rel/CMakeCache.txt", ".git/HEAD", "out/car.csv",
               "car.csv", "examples/python/__pycache__/x.pyc"]
    for path in foreign + SECRETS:
        check(not included(path), f".dockerignore: '{path}' is sent to the Docker build context")
    # Files the build needs must stay.
    needed = ["CMakeLists.txt", "deploy/build.sh", "deploy/install-deps.sh", "proto",
              "common/src/scenario.cc", "tests/CMakeLists.txt"]
    for path in needed:
        check(included(path), f".dockerignore: '{path}' is needed by the build but left out")
    if failures:
        return
    # The tree as a user has it: the sources (git's view when there is one, else the folder)
    # and a foreign build/ whose CMakeCache.txt was made for another source path.
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else [
        str(p.relative_to(source)) for p in source.rglob("*") if p.is_file()]
    build = stages.get("build", [])
    workdir = next((a for w, a in build if w == "WORKDIR"), "/src")
    run = " ".join(a for w, a in build if w == "RUN")
    defines = re.findall(r"(-D[A-Za-z_]+=\S+)", run)
    build_type = re.search(r"BUILD_TYPE=(\S+)", run)
    with tempfile.TemporaryDirectory(prefix="cosimo-context-") as tmp:
        user_tree = Path(tmp) / "user"
        for name in files:
            if (source / name).is_file():
                (user_tree / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source / name, user_tree / name)
        (user_tree / "build").mkdir()
        (user_tree / "build" / "CMakeCache.txt").write_text(
            "# This is the CMakeCache file.\n"
            "CMAKE_HOME_DIRECTORY:INTERNAL=/home/someone/cosimo\n"
            "CMAKE_CACHEFILE_DIR:INTERNAL=/home/someone/cosimo/build\n")
        # What the TLS steps of docs/deployment.md and a few builds leave beside the sources.
        left = SECRETS + ["build-foo/CMakeCache.txt", "build-foo/bin/cosimo", "out/car.csv"]
        for name in left:
            (user_tree / name).parent.mkdir(parents=True, exist_ok=True)
            (user_tree / name).write_text("not for the image\n")
        # COPY . . of the context into the stage's WORKDIR (its name is kept: paths matter to
        # CMake's cache check).
        context = Path(tmp) / "image" / workdir.strip("/")
        size = 0
        for path in sorted(user_tree.rglob("*")):
            relative = str(path.relative_to(user_tree))
            if path.is_file() and included(relative):
                (context / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, context / relative)
                size += path.stat().st_size
        check(size < 50 << 20, f"the Docker build context is {size >> 20} MiB: what is sent?")
        for name in left:
            check(not (context / name).exists(),
                  f".dockerignore: '{name}' reaches the image's build stage (COPY . .)")
        # The build stage's configure step (deploy/build.sh's cmake -S -B), with its options;
        # the compile itself is what the rest of the suite builds.
        configure = subprocess.run(
            ["cmake", "-S", str(context), "-B", str(context / "build"),
             f"-DCMAKE_BUILD_TYPE={build_type.group(1) if build_type else 'Release'}", *defines],
            capture_output=True, text=True)
        check(configure.returncode == 0,
              "the image's build stage fails to configure in a context filtered by "
              ".dockerignore from a tree with a foreign build/:\n" +
              (configure.stderr or configure.stdout)[-2000:])


def check_user_and_volumes(stages):
    """The runtime user's numeric UID, checked in every runtime stage with its volumes."""
    uid = None
    for name, instructions in stages.items():
        if name == "build" or not any(w == "ENTRYPOINT" for w, _ in instructions):
            continue
        users = [a for w, a in instructions if w == "USER"]
        check(users, f"Dockerfile stage {name}: runs as root (no USER)")
        if not users:
            continue
        m = re.fullmatch(r"(\d+)(?::(\d+))?", users[-1])
        check(m is not None and m.group(1) != "0",
              f"Dockerfile stage {name}: USER {users[-1]} must be a numeric, non-root UID[:GID] "
              "(Kubernetes' runAsNonRoot refuses a user name it cannot check)")
        if m is None:
            continue
        uid = m.group(1)
        runs = [a for w, a in instructions if w == "RUN"]
        for w, args in instructions:
            if w != "VOLUME":
                continue
            volumes = json.loads(args) if args.startswith("[") else args.split()
            for volume in volumes:
                owned = any(volume in run and re.search(
                    rf"(chown\s+(-\S+\s+)*{uid}\b|install\b[^&;]*-o\s+{uid}\b)", run)
                    for run in runs)
                check(owned, f"Dockerfile stage {name}: VOLUME {volume} is not created owned by "
                      f"UID {uid} before it is declared (a new volume would be root's and the "
                      "service could not write it)")
    return uid


def check_kubernetes_user(source, uid):
    for manifest in (source / "deploy" / "kubernetes").glob("*.yaml"):
        for doc in yaml.safe_load_all(manifest.read_text()):
            if not doc or doc.get("kind") != "Deployment":
                continue
            pod = doc["spec"]["template"]["spec"]
            context = pod.get("securityContext", {})
            for c in pod["containers"]:
                merged = {**context, **c.get("securityContext", {})}
                if merged.get("runAsNonRoot"):
                    check(str(merged.get("runAsUser")) == str(uid),
                          f"{manifest.name}: runAsNonRoot needs runAsUser (the images' UID {uid})"
                          f", not {merged.get('runAsUser')}")


ORCHESTRATOR_TLS_FLAGS = ["--tls-cert", "--tls-key", "--tls-client-ca", "--token-file",
                          "--worker-token-file"]
WORKER_TLS_FLAGS = ["--tls-ca", "--tls-cert", "--tls-key", "--token-file"]


def flag_values(args, flags, where):
    """The value after each of `flags` in `args`; a missing flag is a failure."""
    values = {}
    for flag in flags:
        check(flag in args[:-1], f"{where}: the secured variant needs {flag}")
        if flag in args[:-1]:
            values[flag] = args[args.index(flag) + 1]
    return values


def check_swarm_stack(source, compose):
    """deploy/swarm/stack.yml is docker-compose.yml for `docker stack deploy` (which refuses the
    latter's depends_on conditions): the same images, port, data volume and workers' dial, and
    nothing Swarm refuses, ignores, or needs IPVS for (the routing mesh, a service's virtual IP:
    not in every kernel, and not in this project's machine's)."""
    name = "deploy/swarm/stack.yml"
    stack = yaml.safe_load((source / name).read_text()) or {}
    # docker.io 20.10's `docker stack deploy` reads no file without a 3.x version.
    check(str(stack.get("version", "")).startswith("3."), f"{name}: version: \"3.x\" is required")
    services, base = stack.get("services", {}), compose.get("services", {})
    check(set(services) == set(base), f"{name}: the services of docker-compose.yml, {sorted(base)}")
    for service_name, service in services.items():
        where = f"{name}: {service_name}"
        for key in ("build", "depends_on", "restart", "container_name", "links"):
            check(key not in service, f"{where}: '{key}' is refused or ignored by Swarm")
        check(service.get("image") == base.get(service_name, {}).get("image"),
              f"{where}: the image of docker-compose.yml's {service_name}")
        deploy = service.get("deploy", {})
        check(deploy.get("endpoint_mode") == "dnsrr",
              f"{where}: endpoint_mode: dnsrr (a virtual IP needs IPVS)")
        check(deploy.get("restart_policy", {}).get("condition") == "any",
              f"{where}: restart_policy condition any (Swarm restarts what exits or is killed)")
        for port in service.get("ports", []):
            check(isinstance(port, dict) and port.get("mode") == "host",
                  f"{where}: port {port}: mode: host (the routing mesh needs IPVS)")
    orch, worker = services.get("orchestrator", {}), services.get("worker", {})
    check(any(isinstance(p, dict) and p.get("target") == 7700 and p.get("published") == 7700
              for p in orch.get("ports", [])), f"{name}: orchestrator: port 7700 published")
    data = [v for v in base.get("orchestrator", {}).get("volumes", [])]
    check(orch.get("volumes") == data, f"{name}: orchestrator: the volumes of docker-compose.yml, {data}")
    deploy = orch.get("deploy", {})
    check(deploy.get("replicas") == 1, f"{name}: orchestrator: one replica (it owns the job store)")
    check(deploy.get("placement", {}).get("constraints"),
          f"{name}: orchestrator: pinned to a node (its data volume is local to it)")
    check(deploy.get("update_config", {}).get("order") == "stop-first",
          f"{name}: orchestrator: update order stop-first (never two on one store)")
    check(not worker.get("ports"), f"{name}: worker: workers dial out and publish no port")
    # No command in either: `docker stack deploy -c stack.yml -c stack.tls.yml` of docker 20.10
    # appends the second file's command to the first's, newer ones replace it.
    for service_name, service in services.items():
        check("command" not in service, f"{name}: {service_name}: no command (the entrypoint "
              "holds the flags; a later file's command would be appended by docker 20.10)")
    dockerfile = (source / "deploy" / "Dockerfile").read_text()
    image_entrypoint = re.search(r'ENTRYPOINT (\["cosimo-orchestrator",.*\])', dockerfile)
    image_args = json.loads(image_entrypoint.group(1)) if image_entrypoint else ["?"]
    check(orch.get("entrypoint", [])[:len(image_args)] == image_args,
          f"{name}: orchestrator: the entrypoint must start with the image's, {image_args}")
    entrypoint = " ".join(str(a) for a in worker.get("entrypoint", []))
    dial = " ".join(str(a) for a in base.get("worker", {}).get("command", []))
    check(re.search(r'exec cosimo-worker ' + re.escape(dial) + r' --slots .*nproc.*"\$\$@"',
                    entrypoint),
          f"{name}: worker: the entrypoint runs cosimo-worker with docker-compose.yml's command "
          f"({dial}) and --slots from nproc, then a later file's command")
    deploy = worker.get("deploy", {})
    check(deploy.get("mode", "replicated") == "replicated" and deploy.get("replicas", 0) >= 1,
          f"{name}: worker: a replicated service")
    check(deploy.get("placement", {}).get("preferences"),
          f"{name}: worker: placement preferences spread the workers")
    check(stack.get("networks", {}).get("cosimo", {}).get("driver") == "overlay",
          f"{name}: an overlay network, cosimo, spans the nodes")


def check_secured_variant(source, dockerfile):
    # Compose and Swarm: an override of docker-compose.yml (of deploy/swarm/stack.yml) whose
    # files come from compose (Docker) secrets, mounted at /run/secrets/<name>.
    check_secured_override(source, dockerfile, "docker-compose.tls.yml", "docker-compose.yml")
    check_secured_override(source, dockerfile, "deploy/swarm/stack.tls.yml",
                           "deploy/swarm/stack.yml", appends=True)
    check_secured_kubernetes(source)


def check_secured_override(source, dockerfile, name, base_name, appends=False):
    """`appends`: the override's command follows the base's entrypoint (docker stack deploy),
    rather than replacing the base's command (compose)."""
    override = yaml.safe_load((source / name).read_text())
    base = yaml.safe_load((source / base_name).read_text()).get("services", {})
    secrets = override.get("secrets", {})
    services = override.get("services", {})
    orch, worker = services.get("orchestrator", {}), services.get("worker", {})
    entrypoint = re.search(r'ENTRYPOINT \["cosimo-orchestrator",(.*)\]', dockerfile)
    orch_args = [str(a) for a in orch.get("command", [])]
    for flag in re.findall(r'"(--[a-z-]+)"', entrypoint.group(1) if entrypoint else ""):
        check(flag not in orch_args,
              f"{name}: orchestrator: {flag} is in the image's ENTRYPOINT already")
    files = {}
    for service_name, service, flags in (("orchestrator", orch, ORCHESTRATOR_TLS_FLAGS),
                                          ("worker", worker, WORKER_TLS_FLAGS)):
        args = [str(a) for a in service.get("command", [])]
        values = flag_values(args, flags, f"{name}: {service_name}")
        paths = list(values.values()) + [str(v) for v in service.get("environment", {}).values()]
        for path in paths:
            secret = path.removeprefix("/run/secrets/")
            check(path.startswith("/run/secrets/") and secret in service.get("secrets", []),
                  f"{name}: {service_name}: '{path}' is not one of its secrets")
            check(secret in secrets and "file" in secrets.get(secret, {}),
                  f"{name}: secret '{secret}' is not defined with a file")
        files[service_name] = values
    check(files["worker"].get("--token-file") == files["orchestrator"].get("--worker-token-file"),
          f"{name}: workers must send the orchestrator's --worker-token-file")
    check(files["worker"].get("--tls-ca") == files["orchestrator"].get("--tls-client-ca"),
          f"{name}: one CA signs both sides' certificates here")
    environment = orch.get("environment", {})
    check("COSIMO_TLS_CA" in environment and "COSIMO_TOKEN_FILE" in environment,
          f"{name}: the orchestrator's health check (cosimo list) needs COSIMO_TLS_CA and "
          "COSIMO_TOKEN_FILE")
    worker_base = base.get("worker", {})
    dials = worker.get("command", []) + (worker_base.get("entrypoint", []) if appends else [])
    check(any("orchestrator:7700" in str(a) for a in dials),
          f"{name}: worker: must still dial orchestrator:7700")
    for service_name, service in services.items():
        base_service = base.get(service_name, {})
        base_args = [str(a) for a in base_service.get("command", [])]
        args = [str(a) for a in service.get("command", [])]
        if appends:
            # After the base's entrypoint: none of its flags again.
            given = " ".join(str(a) for a in base_service.get("entrypoint", []))
            for flag in args:
                check(not flag.startswith("--") or flag not in re.findall(r"--[a-z-]+", given),
                      f"{name}: {service_name}: {flag} is in {base_name}'s entrypoint already")
        else:
            # The override's command replaces the base's: it keeps the base's arguments.
            check(args[:len(base_args)] == base_args,
                  f"{name}: {service_name}: command must start with {base_name}'s {base_args}")
    # Secret files named relative to the first file's folder, as compose and Docker read them.
    for secret, spec in secrets.items():
        path = (source / base_name).parent / str(spec.get("file", ""))
        check(path.resolve().parent == (source / "certs").resolve(),
              f"{name}: secret '{secret}' must be a file in ./certs (docs/deployment.md)")


def check_secured_kubernetes(source):
    # Kubernetes: a kustomize overlay of deploy/kubernetes patching both Deployments.
    overlay = source / "deploy" / "kubernetes-tls"
    kustomization = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    check("../kubernetes" in kustomization.get("resources", []),
          "deploy/kubernetes-tls: must build on ../kubernetes")
    base = {}
    for manifest in (source / "deploy" / "kubernetes").glob("*.yaml"):
        for doc in yaml.safe_load_all(manifest.read_text()):
            if doc and doc.get("kind") == "Deployment":
                base[doc["metadata"]["name"]] = doc["spec"]["template"]["spec"]["containers"][0]
    patched = {}
    for patch in kustomization.get("patches", []):
        doc = yaml.safe_load((overlay / patch["path"]).read_text())
        spec = doc["spec"]["template"]["spec"]
        container, where = spec["containers"][0], f"deploy/kubernetes-tls/{patch['path']}"
        deployment = doc["metadata"]["name"]
        patched[deployment] = container
        secret_volumes = {v["name"] for v in spec.get("volumes", []) if "secret" in v}
        mounts = [m["mountPath"] for m in container.get("volumeMounts", [])
                  if m["name"] in secret_volumes]
        args = [str(a) for a in container.get("args", [])]
        base_args = [str(a) for a in base.get(deployment, {}).get("args", [])]
        check(args[:len(base_args)] == base_args,
              f"{where}: args must start with the base's {base_args} (a patch replaces the list)")
        flags = ORCHESTRATOR_TLS_FLAGS if "orchestrator" in deployment else WORKER_TLS_FLAGS
        for path in flag_values(args, flags, where).values():
            check(any(path.startswith(m.rstrip("/") + "/") for m in mounts),
                  f"{where}: '{path}' is not on a volume mounted from a Secret")
        for probe in ("readinessProbe", "livenessProbe"):
            merged = container.get(probe, base.get(deployment, {}).get(probe, {}))
            check("grpc" not in merged,
                  f"{where}: {probe}: Kubernetes' gRPC probes speak plaintext; use tcpSocket")
    check(set(patched) == set(base), f"deploy/kubernetes-tls: patches {sorted(patched)} must "
          f"cover the Deployments {sorted(base)}")
    # With kubectl at hand, the overlay must also render.
    if shutil.which("kubectl"):
        rendered = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True,
                                  text=True, timeout=120)
        check(rendered.returncode == 0,
              "deploy/kubernetes-tls: kubectl kustomize fails: " + rendered.stderr)


def check_worker_healthcheck(binary, stages):
    worker = stages.get("worker", [])
    checks = [a for w, a in worker if w == "HEALTHCHECK"]
    check(checks, "Dockerfile stage worker: no HEALTHCHECK")
    if not checks:
        return
    m = re.search(r"CMD\s+(\[.*\])", checks[-1])
    command = json.loads(m.group(1)) if m else shlex.split(checks[-1].split("CMD", 1)[1])
    env = {}
    for w, a in worker:
        if w == "ENV":
            for item in shlex.split(a):
                key, _, value = item.partition("=")
                env[key] = value
    args = [json.loads(a) for w, a in worker if w == "CMD"]
    entry = [json.loads(a) for w, a in worker if w == "ENTRYPOINT"]
    if not args or not entry:
        failures.append("Dockerfile stage worker: needs ENTRYPOINT and CMD in JSON form")
        return
    bin_dir = binary / "bin"
    with tempfile.TemporaryDirectory(prefix="cosimo-health-") as tmp:
        # The image's environment, its paths moved into a folder of ours.
        environment = dict(os.environ, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}",
                           HOME=tmp, XDG_CACHE_HOME=tmp)
        for key, value in env.items():
            environment[key] = tmp + value if value.startswith("/") else value
            if value.startswith("/"):
                Path(environment[key]).parent.mkdir(parents=True, exist_ok=True)
        listen = subprocess.run(["python3", "-c", "import socket; s=socket.socket(); "
                                 "s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"],
                                capture_output=True, text=True).stdout.strip()
        address = f"127.0.0.1:{listen}"
        worker_args = [a.replace("orchestrator:7700", address) for a in args[-1]]
        health = lambda: subprocess.run(command, env=environment, capture_output=True,
                                        text=True, timeout=10)
        processes = []
        try:
            processes.append(subprocess.Popen(entry[-1] + worker_args + ["--reconnect-ms", "100"],
                                              env=environment, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
            time.sleep(1)
            result = health()
            check(result.returncode != 0, "worker HEALTHCHECK passes while the worker has no "
                  "orchestrator: " + result.stdout + result.stderr)
            processes.append(subprocess.Popen(
                [str(bin_dir / "cosimo-orchestrator"), "--listen", address], env=environment, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
            deadline = time.time() + 20
            result = health()
            while result.returncode != 0 and time.time() < deadline:
                time.sleep(0.2)
                result = health()
            check(result.returncode == 0, "worker HEALTHCHECK fails although the worker is "
                  "attached to an orchestrator: " + result.stdout + result.stderr)
            processes.pop().terminate()
            deadline = time.time() + 20
            result = health()
            while result.returncode == 0 and time.time() < deadline:
                time.sleep(0.2)
                result = health()
            check(result.returncode != 0,
                  "worker HEALTHCHECK still passes after its orchestrator went away")
        finally:
            for p in processes:
                p.terminate()
                p.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
