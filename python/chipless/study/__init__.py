"""Architecture what-if studies: `chipless study scenarios/NAME.yaml -o out/NAME`.

spec (the study file), sweep (expansion), metrics (stats.json paths and expressions), work
(compile one program, run one point), executors (local processes, Dask), runner (caches,
resume), table, plots and report. docs/studies.md is the user's reference.
"""
