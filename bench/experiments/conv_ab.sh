#!/bin/bash
# ConvSpeed with two jars in turns: A B, then B A, ROUNDS times, one JVM per run (one thread, normal data);
# prints the median ns an element for each jar and pair, and every run.
# bench/experiments/conv_ab.sh JAR_A JAR_B ROUNDS PAIR...   (PAIR as ConvSpeed takes it, e.g. 'u8>f32')
# JAR_B may be the word numpy: NumPy's side (convert_speed_numpy.py, with PY, default python3) in turns with JAR_A.
# Java 25: JAVA (default: the Temurin 25 install). JOPTS: options for both JVMs, e.g. '-Dstride=2' (see ConvSpeed.java).
A=$1; B=$2; R=$3; shift 3
J=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
HERE=$(cd "$(dirname "$0")" && pwd)
median() { printf "%s\n" "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for p in "$@"; do
  ra=(); rb=()
  for ((r=0; r<R; r++)); do
    if (( r % 2 == 0 )); then order="A B"; else order="B A"; fi
    for w in $order; do
      jar=$A; [ $w = B ] && jar=$B
      if [ "$jar" = numpy ]; then
        v=$(${PY:-python3} "$HERE/convert_speed_numpy.py" normal "$p" | sed -E 's/.*: ([0-9.]+) ns\/element.*/\1/')
      else
        v=$($J $JOPTS --add-modules jdk.incubator.vector -cp "$jar" "$HERE/ConvSpeed.java" 1 normal "$p" 2>/dev/null \
            | sed -E 's/.*, ([0-9.]+) ns\/element.*/\1/')
      fi
      if [ $w = A ]; then ra+=("$v"); else rb+=("$v"); fi
    done
  done
  echo "$p A=$(median "${ra[@]}") B=$(median "${rb[@]}")  (A: ${ra[*]}) (B: ${rb[*]})"
done
