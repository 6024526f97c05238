#!/usr/bin/env python3
"""Checks the deployment files without a Docker engine or a cluster.

- docker-compose.yml parses and has an orchestrator service (port 7700, data volume, health
  check) and a worker service that publishes no port and dials the orchestrator by name;
- every Dockerfile target the compose file builds exists, and the build stage runs the same
  deploy/build.sh as the README;
- the runtime stage installs packages that provide every shared library the built binaries
  load (checked with ldd and dpkg against the libraries of this machine's build);
- the Kubernetes manifests parse and name the same images, port and args.

Usage: check_deploy.py SOURCE_DIR BINARY_DIR
"""
import re
import subprocess
import sys
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
            check(owner in closure or owner in base,
                  f"{program} needs {m.group(1)} from package '{owner}', which the runtime "
                  "image does not install")

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

    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
