"""Maps the design card's top-level folders onto one import package, ``voxmem``.

server/ is ``voxmem`` itself; graph_schema/, extractors/, cypher/ and bench/ are its
subpackages. Sub-folders with an ``__init__.py`` are found automatically.
"""

from setuptools import find_namespace_packages, setup

ROOTS = {
    "voxmem": "server",
    "voxmem.graph_schema": "graph_schema",
    "voxmem.extractors": "extractors",
    "voxmem.cypher": "cypher",
    "voxmem.bench": "bench",
}

packages = []
for package, folder in ROOTS.items():
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]

setup(packages=packages, package_dir=ROOTS)
