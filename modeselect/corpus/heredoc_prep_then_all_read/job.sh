#!/bin/bash
#SBATCH --job-name=imaging-stats
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Image stack statistics: the job writes its two Python stages into the workspace from
# heredocs; one task prepares the stack (12 frames as .npy files and a catalogue with each
# frame's column sums); then every task reads an interleaved share of the rows of every frame
# and the column sums are reduced (mpi4py) and checked against the catalogue.
set -euo pipefail

# the site Python has numpy and mpi4py; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy, mpi4py' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

WORK=$BB_MOUNT/imaging.$SLURM_JOB_ID
mkdir -p "$WORK/stack"

cat > "$WORK/prep.py" <<'EOF_PREP'
import json, sys
import numpy as np
stack, frames = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
catalogue = {}
for k in range(frames):
    frame = rng.integers(0, 4096, size=(512, 1024), dtype=np.int32).astype(np.float32)
    name = f"frame_{k:03d}.npy"
    np.save(f"{stack}/{name}", frame)
    catalogue[name] = frame.sum(axis=0, dtype=np.float64).tolist()
with open(f"{stack}/catalogue.json", "w") as f:
    json.dump(catalogue, f)
print(f"prep: {frames} frames of 512 x 1024")
EOF_PREP

cat > "$WORK/analyse.py" <<'EOF_ANALYSE'
import json, sys
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
stack = sys.argv[1]
with open(f"{stack}/catalogue.json") as f:
    catalogue = json.load(f)
bad = 0
for name in sorted(catalogue):
    frame = np.load(f"{stack}/{name}", mmap_mode="r")
    part = np.asarray(frame[comm.rank::comm.size], dtype=np.float64).sum(axis=0)
    total = np.empty_like(part)
    comm.Allreduce(part, total)
    bad += int(not np.array_equal(total, np.array(catalogue[name])))
if comm.rank == 0:
    print(f"analyse: {len(catalogue)} frames reduced over {comm.size} tasks, {bad} mismatched")
sys.exit(1 if bad else 0)
EOF_ANALYSE

srun -N 1 -n 1 $PYTHON "$WORK/prep.py" "$WORK/stack" 12
srun $PYTHON "$WORK/analyse.py" "$WORK/stack"
rm -rf "$WORK"
