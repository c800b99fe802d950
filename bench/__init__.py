"""The benchmarks: cases, synthetic voices and shifts, the end-to-end runner, per-area benches,
scoring, reports and plots.

Not part of the product: ``bench`` is a top-level package of the repository, run from its root
(``python -m bench.runner``), never installed with ``voxmem`` (setup.py maps only server/,
graph_schema/, extractors/ and cypher/). It imports the product; the product never imports it
(``tests/test_product_independence.py``). Its extra dependencies are the ``bench`` extra.
"""
