#!/bin/sh
# Stands in for ptxas in ptxas-spills.test: fails as ptxas 13.0 failed on
# PTX whose wgmma bound more registers than a thread started with (two
# consumer groups of 128 x 256 tiles, 640 threads), its reason on the first
# line and a generic one on the last.
cat <<LOG
ptxas fatal   : (C7602) Insufficient registers (96) to compile instruction at line 531 in function bmm. Try to compile with register target of 154 or higher.
ptxas fatal   : Ptx assembly aborted due to errors
LOG
exit 255
