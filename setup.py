"""Maps the design card's top-level folders onto one import package, ``voxmem``.

server/ is ``voxmem`` itself; graph_schema/, extractors/ and cypher/ are its subpackages.
Sub-folders with an ``__init__.py`` are found automatically. bench/ is not part of the product:
it is the repository's own top-level ``bench`` package, run from the repository root
(``python -m bench.runner``) and never installed.
"""

from setuptools import find_namespace_packages, setup

ROOTS = {
    "voxmem": "server",
    "voxmem.graph_schema": "graph_schema",
    "voxmem.extractors": "extractors",
    "voxmem.cypher": "cypher",
}

packages = []
for package, folder in ROOTS.items():
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]

setup(packages=packages, package_dir=ROOTS)
