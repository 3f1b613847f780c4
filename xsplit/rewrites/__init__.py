"""xsplit's passes, one module each, grouped by subsystem as IREE groups its
compiler:

- `split/`: `split-k` and its strategies (forall, expand, aligned, grouped,
  encoded) with the chunk planner;
- `encoding/`: `set-encoding`, `materialize-early`, `materialize-late`;
- `dispatch/`: `form-dispatch-regions`, `dispatch-regions-to-workgroups`,
  `export-dispatch` (with the host side it exports);
- `distribute/`: `distribute`, `insert-barriers`, `verify-sync`;
- `reduce/`: `fuse-reduction`, `lower-reduce`;
- `pipelines/`: `auto`, the cost model's choice per op;
- `common/`: IR helpers more than one subsystem builds with (encodings);
- `dsl/`: the declarative pattern language every pass is written in.

Analyses they share (contractions, reductions, ranges, accesses, writes, the
cost model) are in `xsplit.analysis`; the machine model in `xsplit.targets`.
"""
