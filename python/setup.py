"""Installs the ``cosimo`` Python package (docs/python.md), offline, from Debian's packages.

    python3 -m venv --without-pip --system-site-packages ~/cosimo-venv   # Debian 12: no pip
    ~/cosimo-venv/bin/python -m pip install ./python                     # into /usr itself

The gRPC stubs are generated at install from ``../proto`` by ``cosimo/_generate.py`` (Debian's
protoc and grpc_python_plugin: protobuf-compiler, protobuf-compiler-grpc) into the installed
package, whatever stubs the source folder holds. There is deliberately no pyproject.toml: pip
would then build in an isolated environment and download setuptools; without one it uses the
setuptools Debian ships (python3-setuptools), so nothing is downloaded. The dependencies are
Debian's python3-grpcio and python3-protobuf; numpy, pandas and matplotlib are optional.
"""

import runpy
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithStubs(build_py):
    """build_py, then the stubs generated into the built package from ../proto."""

    def run(self) -> None:
        super().run()
        proto_dir = HERE.parent / "proto"
        out = Path(self.build_lib) / "cosimo" / "v1"
        if (proto_dir / "cosimo" / "v1" / "job_service.proto").is_file():
            generate = runpy.run_path(str(HERE / "cosimo" / "_generate.py"))["generate"]
            generate(proto_dir, out)
        elif not (out / "_stubs.json").is_file():
            raise SystemExit("cosimo: no proto/ beside python/ to generate the gRPC stubs from, "
                             "and no generated stubs in the package: install from the "
                             "repository (pip install ./python)")


setup(
    name="cosimo",
    version="0.1.0",
    description="Cosimo co-simulation service from Python: jobs, results as arrays",
    python_requires=">=3.11",
    packages=find_packages(include=["cosimo", "cosimo.*"]),
    package_data={"cosimo": ["py.typed"]},
    install_requires=["grpcio", "protobuf"],
    extras_require={"arrays": ["numpy"], "pandas": ["pandas"], "plot": ["matplotlib"]},
    cmdclass={"build_py": BuildPyWithStubs},
)
