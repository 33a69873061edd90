#!/bin/bash
#SBATCH --job-name=kv-ingest
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Key-value ingest: every task runs an LSM store of its own (write-ahead log, L0 flushes,
# compactions, a manifest replaced by rename) under db/task<rank>; a second step with the same
# task placement recovers each store from its directory and manifest and checks every key.
set -euo pipefail

DB=$BB_MOUNT/db
KEYS=16000

srun ./bin/kvstore load "$DB" $KEYS
srun ./bin/kvstore verify "$DB" $KEYS
rmdir "$DB" 2>/dev/null || true
