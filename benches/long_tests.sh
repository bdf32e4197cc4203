#!/bin/sh
# The tests with the long forms of the sweeps `cargo test` runs on a sample (OZONE_CONFORM_LONG=1; today the
# recon-om-sync export's line-deletion sweep, bugs::recon_om_sync::witness::tests::a_lost_line_..., deletes
# every record instead of every third). Arguments go to cargo test, e.g. a filter:
#   benches/long_tests.sh --lib a_lost_line
# The refinement walks' long run is benches/refinement.sh.
set -e
cd "$(dirname "$0")/.."
OZONE_CONFORM_LONG=1 exec cargo test --locked "$@"
