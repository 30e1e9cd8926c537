#!/bin/bash
# Runs each selftest build 6 times standalone; prints verdict lines and timing.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in st_conv_hip-7.1 st_conv_hip-5.2 st_its_hip-7.1 st_its_hip-5.2; do
  for i in 1 2 3 4 5 6; do
    s=$(date +%s%N); out=$(timeout 25 ./$b 2>&1); rc=$?; e=$(date +%s%N)
    echo "$b run $i rc=$rc $(( (e - s) / 1000000 ))ms: $(echo "$out" | grep -E 'VERDICT|CASS wave64' | head -2 | tr '\n' ' ')"
    [ $i = 1 ] && echo "$out" | head -8 > $OUT/${b}_first.txt
  done
done
