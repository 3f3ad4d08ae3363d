#!/usr/bin/env bash
# One lease of a GPU machine (`device` tool: 15 minutes in all, a few of them its start): fine-tune the bundled
# release's classifier and detector on trick piles whose indices show a third to a half (the hand reader's
# misses, issue 15), and bring the checkpoints back in $OUT; export and judge them here on the CPU:
#
#   run: bash models/device_train.sh                   (timeout_s 600; the repo's root; python3 there has torch)
#   here: python -m models.export --work <files_at> --tag device-N --out /tmp/rel
#         python -m models.handbench ... --model /tmp/rel      (pile reads made anew: a release of its own)
#
# Sets are made on the machine's CPU cores in parallel (JOBS processes, seeds of their own, apart from every
# training and benchmark seed), then the classifier and the detector step on the GPU within their minute
# budgets (the schedule fits the budget: `models.train --*-minutes`). Everything sized by the variables below;
# a CPU run at tiny sizes is the test (`tests/vision/test_vision_training_smoke.py`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
JOBS=${JOBS:-14}                  # set-making processes
N_DET=${N_DET:-160}               # detector photos per process (0.25 s each on one core)
N_PILE=${N_PILE:-36}              # classifier scenes per process: tight trick piles (~240 crops each)
N_MIX=${N_MIX:-24}                # ... and the usual scenes with some piles, so the rest is not forgotten
MIN_CLS=${MIN_CLS:-2.5}           # minutes of classifier training
MIN_DET=${MIN_DET:-3.0}           # minutes of detector training
CLS_BATCH=${CLS_BATCH:-512}
DET_BATCH=${DET_BATCH:-48}
SEED=${SEED:-48000}
OUT=${OUT:-/tmp/device-train-out}
W=${WORK:-/tmp/device-train}
RELEASE=models/cards/2026-12-03-synth7c
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
mkdir -p "$W" "$OUT"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/run.log"; }

log "device $DEVICE; $(nvidia-smi -L 2>/dev/null | head -1 || echo 'no nvidia-smi')"
"$PY" -c "import torch, cv2, onnxruntime; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" \
  | tee -a "$OUT/run.log"
"$PY" -c "from models.train import resolve_device; resolve_device('$DEVICE')"    # no GPU: stop now
cp models/checkpoints/det.pt models/checkpoints/cls.pt "$W"/           # the release's weights, new schedules

t0=$(date +%s)
pids=()
for k in $(seq 0 $((JOBS - 1))); do
  s=$((SEED + 10 * k))
  ( "$PY" -m models.dataset det --n "$N_DET" --seed "$s" --trick-piles 0.7 --out "$W/det-$k.npz" >/dev/null
    "$PY" -m models.dataset cls --n "$N_PILE" --seed $((s + 1)) --trick-piles 1.0 --tight --partial 4 \
      --negatives 4 --detector "$RELEASE" --out "$W/cls-pile-$k.npz" >/dev/null
    "$PY" -m models.dataset cls --n "$N_MIX" --seed $((s + 2)) --trick-piles 0.3 --negatives 8 \
      --detector "$RELEASE" --out "$W/cls-mix-$k.npz" >/dev/null ) 2>>"$OUT/sets.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
dets=("$W"/det-*.npz); clss=("$W"/cls-*.npz)
log "sets made in $(( $(date +%s) - t0 )) s: ${#dets[@]} det, ${#clss[@]} cls"

threads=$(nproc)
"$PY" -m models.train --stage cls --work "$W" --device "$DEVICE" --threads "$threads" --restart --lr 3e-4 \
  --cls-epochs 3 --cls-minutes "$MIN_CLS" --cls-batch "$CLS_BATCH" --cls-geometry --seed "$SEED" \
  2>&1 | tr '\r' '\n' | grep -v '^ *$' | tail -n 8 | tee -a "$OUT/run.log"
"$PY" -m models.train --stage det --work "$W" --device "$DEVICE" --threads "$threads" --restart --lr 3e-4 \
  --det-steps 100000 --det-minutes "$MIN_DET" --det-batch "$DET_BATCH" --loader-threads $((threads - 2)) \
  --ckpt-every 500 --seed "$SEED" 2>&1 | tr '\r' '\n' | grep -v '^ *$' | tail -n 4 | tee -a "$OUT/run.log"
cp "$W/det.pt" "$W/cls.pt" "$OUT"/
log "done in $(( $(date +%s) - t0 )) s; checkpoints in $OUT"
