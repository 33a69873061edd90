#!/bin/bash
#SBATCH --job-name=spectra-campaign
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Spectra campaign run by a Python driver in the batch shell that starts its stages with
# subprocess and srun: the workers write their spectra and summaries, the driver reads all of
# them and writes a report, and the workers validate each other's output.
set -euo pipefail
python3 driver.py "$BB_MOUNT/campaign" 512
