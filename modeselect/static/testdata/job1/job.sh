#!/bin/bash
#SBATCH --job-name=ckpt
#SBATCH -N 4
#SBATCH --ntasks-per-node=8
#SBATCH --distribution=block
set -euo pipefail
# srun ior -w -o /should/not/count   (a comment)
BB_MOUNT=${BB_MOUNT:-/tmp/bb.$SLURM_JOB_ID}
OUT=$BB_MOUNT/out
NP=$((SLURM_NNODES * 8))
IOR_OPTS="-a MPIIO -b 4m -t 1m -s 4 -c"

source ./env.sh
make -C src solver
mpif90 -O2 -o field src/field.f90

cp -r input "$BB_MOUNT/"
mkdir -p "$OUT"
for i in $(seq 0 3); do
  mkdir -p "$OUT/node$i"
done

run_ior() {
  srun -n "$1" --cpu-bind=cores ior $IOR_OPTS -w -F -e -o "$OUT/ior/test"
}
run_ior $NP
srun -N 4 --ntasks-per-node=8 -m cyclic ior $IOR_OPTS -r -F -C -Q 8 -o "$OUT/ior/test"

srun --mpi=pmix -l -o log.%t ./src/solver --out "$OUT/ckpt" --steps $STEPS
mpirun -np 16 --map-by ppr:4:node python3 src/analyze.py "$OUT/ckpt"
srun ./field
srun -n 32 mdtest -n 1000 -u -F -d "$OUT/md" -z 2 -b 2 -N 8 -w 4096 -e 4096
cat > "$OUT/job.fio" <<EOF
[global]
directory=${OUT}/fio
bs=4k
size=64m
ioengine=psync
[randw]
rw=randwrite
numjobs=4
fsync=16
EOF
srun -n 4 fio "$OUT/job.fio" --output=fio.json
bash ./post.sh "$OUT"
rsync -a "$OUT/ckpt" results/
