#!/usr/bin/env bash
# ci/mutation.sh -- the mutation score: plant each mutant of ci/mutants.txt in a scratch copy of
# the tree and run `make check` on it (ci/mutation.py says how, and how to read the table).
# Not part of CI: about a minute per mutant. Arguments go to ci/mutation.py, e.g.
#   bash ci/mutation.sh --repeat 2 --report build/mutation.md
#   bash ci/mutation.sh --only M01,M23 --cmd "make check-full"
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 ci/mutation.py "$@"
