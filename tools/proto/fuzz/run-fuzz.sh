#!/bin/sh
# ctest driver for fuzz_rx: build the libFuzzer binary with clang from
# the proto/ sources, write the seed corpus, fuzz for a bounded time,
# starting from the seeds and the corpus kept in the repository
# (tools/proto/fuzz/corpus: the inputs of earlier runs, merged with
# -merge=1 so that each adds coverage; new finds go to the work dir).
#   run-fuzz.sh <clang> <proto dir> <seeds binary> <work dir> <seconds>
# Exit status 0: no crash, no sanitizer report, no leak.
set -eu
clang=$1 proto=$2 seeds=$3 work=$4 secs=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/corpus"
"$clang" -g -O1 -Wall -Wextra -Werror -std=c11 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$proto" "$here/fuzz_rx.c" "$proto/mpa.c" "$proto/fpdu.c" \
	"$proto/crc32c.c" "$proto/ddp.c" -o "$work/fuzz_rx"
"$seeds" "$work/corpus"
cd "$work"
./fuzz_rx -max_total_time="$secs" -seed=1 -print_final_stats=1 corpus \
	"$here/corpus"
