#!/bin/sh
# The tests with the long forms of the sweeps `cargo test` runs on a sample (OZONE_CONFORM_LONG=1):
# - the recon-om-sync export's line-deletion sweep (bugs::recon_om_sync::witness::tests::a_lost_line_...)
#   deletes every record instead of every third;
# - the deletion sweeps with one node's clock off (tests/deletion_sweep.rs, deleting_any_event_line_with_one_
#   nodes_clock_off_...) delete every record with each file's clock off; `cargo test` deletes, in a case of
#   three files or more, every third record with each (each record still deleted with some clock off).
# Arguments go to cargo test, e.g. a filter:
#   benches/long_tests.sh --lib a_lost_line
#   benches/long_tests.sh --test integration deletion_sweep::
# The refinement walks' long run is benches/refinement.sh.
set -e
cd "$(dirname "$0")/.."
OZONE_CONFORM_LONG=1 exec cargo test --locked "$@"
