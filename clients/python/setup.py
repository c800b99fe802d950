"""Builds ``voxmem-client`` from the server tree, keeping only the client and its models."""

from setuptools import setup
from setuptools.command.build_py import build_py

SERVER = "../../server"  # relative: setuptools refuses absolute package paths
KEEP = {("voxmem", "__init__"), ("voxmem", "client"), ("voxmem.api", "schemas")}


class ClientOnly(build_py):
    """Copy just the three modules the client needs (no services, no torch-bound code)."""

    def find_package_modules(self, package, package_dir):
        return [m for m in super().find_package_modules(package, package_dir) if (m[0], m[1]) in KEEP]


setup(
    packages=["voxmem", "voxmem.api"],
    package_dir={"voxmem": SERVER, "voxmem.api": f"{SERVER}/api"},
    cmdclass={"build_py": ClientOnly},
)
