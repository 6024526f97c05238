"""Generated gRPC stubs of ``proto/cosimo/v1`` (``*_pb2.py``, ``*_pb2_grpc.py``, ``_stubs.json``).

Nothing here but this file is written by hand or committed: the build (CMake target
``cosimo_python_package``) or ``pip install ./python`` generates the rest with
``cosimo/_generate.py``. ``cosimo._stubs`` checks them against their ``.proto`` files.
"""
