#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Program workloads (workloads/README.md): each parser of
# workloads/parsers/ on the real output captured in a guest
# (tests/fixtures/programs/), exact rows; the outputs they must refuse;
# parse.sh's checks of a parser's rows; wl.sh's errors for a program
# workload, with file and line; which files the default run and
# WORKLOADS= take; guest/run.sh running a program point on the host;
# orchestrate/run.sh writing a program point into the plan.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..61"
unset MATRIX QUICK WORKLOADS
fx=$top/tests/fixtures/programs
parse=$top/workloads/parsers/parse.sh
for c in awk apt-cache perf; do
	command -v "$c" >/dev/null || { echo "Bail out! $c not found (make deps; apt-cache: a Debian 12 host)"; exit 1; }
done
# the package check asks apt on this host: its lists must know Debian 12
cand=$(apt-cache policy linux-perf)
grep -q 'Candidate: [0-9]' <<<"$cand" ||
	{ echo "Bail out! apt-cache policy linux-perf has no candidate: run apt-get update"; exit 1; }

# rows PARSER FILE: the parser's CSV rows of FILE as rep 1 at vcpus=2
rows() {
	sh "$parse" --parser "$1" --workload w --variant default --point 'vcpus=2' \
		--clock icount --rep 1 "$fx/$2"
}
# want PARSER FILE: the rows equal stdin's "metric,unit,better,value" lines
want() {
	local got exp
	got=$(rows "$1" "$2" 2>&1) || true
	exp=$(sed 's/^/w,default,vcpus=2,/' | awk -F, -v OFS=, '{ v = $7; $7 = "icount"; $8 = 1; $9 = v; print }')
	is "$1 on $2: the exact rows" "$got" "$exp"
}
# refuse PARSER FILE WANT: exit 1, no row on stdout, one error naming
# the parser and the file, matching WANT
refuse() {
	local rc=0
	sh "$parse" --parser "$1" --workload w --variant default --point 'vcpus=2' \
		--clock icount --rep 1 "$2" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q "^kbench: error: parser $1: $2: .*$3" "$tmp/err"; then
		ok 0 "$1 refuses $(basename "$2"): $(cat "$tmp/err")"
	else
		ok 1 "$1 refuses $(basename "$2") with '$3' (exit $rc)"
		diag "$(cat "$tmp/out" "$tmp/err")"
	fi
}

# perf bench: sched pipe (processes, threads) and sched messaging
want perf-bench perf-pipe-l20000.out <<'R'
total_time_s,s,lower,0.281
usecs_per_op,us,lower,14.082550
ops_per_sec,ops/s,higher,71009
R
want perf-bench perf-pipe-l5000-T.out <<'R'
total_time_s,s,lower,0.069
usecs_per_op,us,lower,13.937200
ops_per_sec,ops/s,higher,71750
R
want perf-bench perf-messaging-g2-l20.out <<'R'
total_time_s,s,lower,0.212
R
want perf-bench perf-messaging-p-t-g1-l50.out <<'R'
total_time_s,s,lower,0.054
R
refuse perf-bench "$fx/perf-pipe-simple.out" 'not --format simple'
refuse perf-bench "$fx/perf-bad-option.out" 'no "Total time: N \[sec\]" line'
cat "$fx/perf-pipe-l20000.out" "$fx/perf-pipe-l5000-T.out" >"$tmp/two.out"
refuse perf-bench "$tmp/two.out" 'a second benchmark'
sed 's/14.082550/14.08x/' "$fx/perf-pipe-l20000.out" >"$tmp/nan.out"
refuse perf-bench "$tmp/nan.out" "'14.08x' is not a number"

# stress-ng --metrics --yaml: one stressor, two, a bogo-ops bound run
want stress-ng stress-cpu-fft.yaml <<'R'
cpu_bogo_ops_per_s,ops/s,higher,197.900503
cpu_bogo_ops_per_s_cpu,ops/s,higher,197.962635
cpu_bogo_ops,count,none,792
R
want stress-ng stress-cpu-matrix-2.yaml <<'R'
cpu_bogo_ops_per_s,ops/s,higher,167.718247
cpu_bogo_ops_per_s_cpu,ops/s,higher,127.686010
cpu_bogo_ops,count,none,676
matrix_bogo_ops_per_s,ops/s,higher,233.096140
matrix_bogo_ops_per_s_cpu,ops/s,higher,338.615592
matrix_bogo_ops,count,none,934
R
want stress-ng stress-switch-ops.yaml <<'R'
switch_bogo_ops_per_s,ops/s,higher,81749.794373
switch_bogo_ops_per_s_cpu,ops/s,higher,121905.876473
switch_bogo_ops,count,none,20000
R
# stress-ng-sched.wl's futex point, as guest/run.sh ran it
want stress-ng wl-stress-ng-sched-futex.yaml <<'R'
futex_bogo_ops_per_s,ops/s,higher,435.508505
futex_bogo_ops_per_s_cpu,ops/s,higher,218.027762
futex_bogo_ops,count,none,1308
R
grep -v '^\.\.\.$' "$fx/stress-cpu-fft.yaml" >"$tmp/cut.yaml"
refuse stress-ng "$tmp/cut.yaml" 'no "\.\.\." at the end'
refuse stress-ng "$fx/stress-cpu-fft.err" 'expected "---" first'
sed '/bogo-ops-per-second-real-time/d' "$fx/stress-cpu-fft.yaml" >"$tmp/norate.yaml"
refuse stress-ng "$tmp/norate.yaml" 'stressor cpu: no bogo-ops-per-second-real-time'
: >"$tmp/empty.yaml"
refuse stress-ng "$tmp/empty.yaml" 'empty: no stress-ng YAML'

# fio --output-format=json: one job (psync), a write job, two jobs
# without group_reporting (job1_, job2_), libaio with group_reporting
want fio fio-randread.out <<'R'
read_iops,iops,higher,11728.695073
read_bw_kib_s,KiB/s,higher,46914
read_clat_mean_ns,ns,lower,83089.105469
read_clat_p1_ns,ns,lower,8512
read_clat_p5_ns,ns,lower,8512
read_clat_p10_ns,ns,lower,8512
read_clat_p20_ns,ns,lower,8512
read_clat_p30_ns,ns,lower,8512
read_clat_p40_ns,ns,lower,30336
read_clat_p50_ns,ns,lower,41728
read_clat_p60_ns,ns,lower,47360
read_clat_p70_ns,ns,lower,71168
read_clat_p80_ns,ns,lower,77312
read_clat_p90_ns,ns,lower,92672
read_clat_p95_ns,ns,lower,126464
read_clat_p99_ns,ns,lower,1028096
read_clat_p99_5_ns,ns,lower,1925120
read_clat_p99_9_ns,ns,lower,4882432
read_clat_p99_95_ns,ns,lower,6062080
read_clat_p99_99_ns,ns,lower,8585216
R
want fio fio-write.out <<'R'
write_iops,iops,higher,19692.307692
write_bw_kib_s,KiB/s,higher,1260307
write_clat_mean_ns,ns,lower,46317.339844
write_clat_p1_ns,ns,lower,17792
write_clat_p5_ns,ns,lower,17792
write_clat_p10_ns,ns,lower,17792
write_clat_p20_ns,ns,lower,17792
write_clat_p30_ns,ns,lower,17792
write_clat_p40_ns,ns,lower,17792
write_clat_p50_ns,ns,lower,17792
write_clat_p60_ns,ns,lower,41216
write_clat_p70_ns,ns,lower,50432
write_clat_p80_ns,ns,lower,54528
write_clat_p90_ns,ns,lower,98816
write_clat_p95_ns,ns,lower,110080
write_clat_p99_ns,ns,lower,158720
write_clat_p99_5_ns,ns,lower,798720
write_clat_p99_9_ns,ns,lower,1003520
write_clat_p99_95_ns,ns,lower,1003520
write_clat_p99_99_ns,ns,lower,1003520
R
# the workload's own command, as guest/run.sh ran it (fio-randread.wl
# at depth 16: its --percentile_list)
want fio wl-fio-randread-qd16.out <<'R'
read_iops,iops,higher,68240.586471
read_bw_kib_s,KiB/s,higher,272962
read_clat_mean_ns,ns,lower,225733.277831
read_clat_p50_ns,ns,lower,197632
read_clat_p90_ns,ns,lower,325632
read_clat_p99_ns,ns,lower,432128
read_clat_p99_9_ns,ns,lower,1941504
R
got=$(rows fio fio-randrw-2jobs.out | cut -d, -f4- | tr '\n' ' ')
n2=$(wc -w <<<"$got")
case "$got" in
"job1_read_iops,iops,higher,icount,1,8942.038641 job1_read_bw_kib_s,KiB/s,higher,icount,1,35768 job1_read_clat_mean_ns,ns,lower,icount,1,52016.610826 job1_read_clat_p1_ns,ns,lower,icount,1,12864 "*"job1_write_iops,iops,higher,icount,1,8933.377748 "*"job2_read_iops,iops,higher,icount,1,8853.097935 "*"job2_write_clat_p99_99_ns,ns,lower,icount,1,4554752 ")
	r=0 ;;
*) r=1 ;;
esac
[ "$n2" = 80 ] || r=1
case "$got" in *trim*) r=1 ;; esac
ok "$r" "fio on fio-randrw-2jobs.out: job1_ and job2_, read and write, 20 rows each, no trim (it did no I/O): $n2 rows"
[ "$r" = 0 ] || diag "$got"
got=$(rows fio fio-randread-group.out | cut -d, -f4,9 | grep -E '^(read_iops|read_bw_kib_s|read_clat_mean_ns|read_clat_p50_ns),' | tr '\n' ' ')
is "fio on fio-randread-group.out (libaio, --group_reporting): one job's names" "$got" \
	"read_iops,78609.463512 read_bw_kib_s,314437 read_clat_mean_ns,183490.185827 read_clat_p50_ns,164864 "
head -n 60 "$fx/fio-randread.out" >"$tmp/cut.json"
refuse fio "$tmp/cut.json" 'the JSON ends early'
sed 's/"error" : 0/"error" : 5/' "$fx/fio-randread.out" >"$tmp/err.json"
refuse fio "$tmp/err.json" 'job 0 (randread) reported error 5'
sed 's/"bw" : 46914,/"bw" : 46914/' "$fx/fio-randread.out" >"$tmp/comma.json"
refuse fio "$tmp/comma.json" 'line 27: unexpected "iops"'
refuse fio "$fx/perf-pipe-l20000.out" 'no JSON'

# hackbench: processes, threads
want hackbench hackbench-g2-l50.out <<'R'
time_s,s,lower,0.225
R
want hackbench hackbench-p-T.out <<'R'
time_s,s,lower,0.097
R
cat "$fx/hackbench-g2-l50.out" "$fx/hackbench-p-T.out" >"$tmp/two.out"
refuse hackbench "$tmp/two.out" 'a second "Time:"'

# Every parser has fixtures above; every fixture's parser exists.
r=0
for p in "$top"/workloads/parsers/*.awk; do
	p=$(basename "$p" .awk)
	grep -q "^want $p " "$0" || { r=1; diag "parser $p has no fixture case here"; }
done
ok "$r" "every parser in workloads/parsers/ is tested on real output here"

# parse.sh checks a parser's rows, whatever the parser (a stand-in
# parser next to a copy of parse.sh prints each bad row in turn).
mkdir -p "$tmp/pp"
cp "$parse" "$tmp/pp/"
echo x >"$tmp/in"
badrow() {
	printf 'BEGIN { printf "%s\\n" }\n' "$1" >"$tmp/pp/bad.awk"
	sh "$tmp/pp/parse.sh" --parser bad --workload w --variant default --point none \
		--clock icount --rep 1 "$tmp/in" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q "$2" "$tmp/err"; then
		ok 0 "parse.sh refuses a parser row '$1': $(cat "$tmp/err")"
	else
		ok 1 "parse.sh refuses a parser row '$1' (exit $rc)"
		diag "$(cat "$tmp/out" "$tmp/err")"
	fi
}
badrow 'ns_op\tns\tfaster\t1' 'better "faster" is not lower, higher or none'
badrow 'ns_op\tn,s\tlower\t1' 'unit "n,s" is empty or has a character'
badrow 'Ns\tns\tlower\t1' 'metric name "Ns" is not'
badrow 'ns\tns\tlower\t1,5' 'value "1,5" is not a decimal number'
badrow 'ns\tns\tlower\t1\nns\tns\tlower\t2' 'metric ns twice in one sample'
badrow '' 'no rows'
badrow 'error\tit broke' 'it broke'
rc=0
sh "$parse" --parser perf-bench --workload 'a,b' --variant default --point none \
	--clock icount --rep 1 "$fx/perf-pipe-l20000.out" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "must not contain commas" "$tmp/err" && r=0 || r=1
ok "$r" "parse.sh: a workload name with a comma would break the CSV: refused"

# wl.sh: a program workload's errors name the file and line.
wlerr() {
	local desc=$1 pat=$2
	shift 2
	printf '%s\n' "$@" >"$tmp/p.wl"
	if (wl_load "$tmp/p.wl") >/dev/null 2>"$tmp/err"; then
		ok 1 "$desc: loaded"
	elif grep -q "^kbench: error: $tmp/p.wl:$pat" "$tmp/err"; then
		ok 0 "$desc: $(sed "s|$tmp/||" "$tmp/err")"
	else
		ok 1 "$desc"
		diag "$(cat "$tmp/err")"
	fi
}
p=("name = p" "command = perf bench sched pipe -l {loops}" "matrix.loops = 10")
wlerr "no parser key" "2: a program workload needs parser = NAME (one of: .*perf-bench" \
	"${p[@]}" "packages = linux-perf"
wlerr "a parser that is not there" "4: parser: no parser 'perf-bnech'" \
	"${p[@]}" "parser = perf-bnech" "packages = linux-perf"
wlerr "a package Debian 12 cannot install" "5: packages: 'kbench-no-such-package' is not a package Debian 12 can install" \
	"${p[@]}" "parser = perf-bench" "packages = linux-perf kbench-no-such-package"
wlerr "no packages" "2: a program workload needs packages =" \
	"${p[@]}" "parser = perf-bench"
wlerr "a parser without a command" "3: parser is for a program workload (command =)" \
	"name = p" "bench = procirq_read" "parser = perf-bench"
wlerr "a placeholder that is no parameter" "2: command: {loop} is not a matrix parameter" \
	"name = p" "command = perf bench sched pipe -l {loop}" "matrix.loops = 10" "parser = perf-bench" "packages = linux-perf"
wlerr "a parameter the command never uses" "4: matrix.groups: the command never uses {groups}" \
	"${p[@]}" "matrix.groups = 1 2" "parser = perf-bench" "packages = linux-perf"
wlerr "\$KB_DISK1 without a disk" "2: command: \\\$KB_DISK1, but disks gives 0 disk(s)" \
	"name = p" "command = fio --filename=\$KB_DISK1" "parser = fio" "packages = fio"
wlerr "a bench's package Debian 12 cannot install" "3: packages: 'kbench-no-such-package' is not a package Debian 12 can install" \
	"name = p" "bench = procirq_read" "packages = kbench-no-such-package"
wlerr "both bench and command" "3: both bench (line 2) and command" \
	"name = p" "bench = procirq_read" "command = true" "parser = fio" "packages = fio"

# The runs' files: the default run (MATRIX=claims, no WORKLOADS=)
# takes no program workload and every bench workload but those that say
# default_run = no (bpftrace-attach: it needs bpftrace in the image);
# WORKLOADS= names one.
mapfile -t def < <(MATRIX=claims wl_files "$top/workloads" "")
r=0
for f in "$top"/workloads/*.wl; do
	case " ${def[*]} " in *" $f "*) in=1 ;; *) in=0 ;; esac
	if grep -q '^command *=' "$f" || grep -q '^default_run *= *no' "$f"; then
		[ "$in" = 0 ] || r=1
	else
		[ "$in" = 1 ] || r=1
	fi
done
[ "${#def[@]}" -ge 7 ] || r=1
case " ${def[*]} " in *bpftrace-attach.wl*) r=1 ;; esac
ok "$r" "the default run takes every bench workload but those of default_run = no, and no program workload (${#def[@]} files: $(basename -a "${def[@]}" | tr '\n' ' '))"
is "WORKLOADS=perf-sched-pipe takes it alone" "$(wl_files "$top/workloads" perf-sched-pipe)" \
	"$top/workloads/perf-sched-pipe.wl"
mkdir -p "$tmp/wd"
printf '%s\n' "name = a" "command = perf bench sched pipe" "parser = perf-bench" "packages = linux-perf" >"$tmp/wd/a.wl"
printf '%s\n' "name = b" "command = perf bench sched pipe" "parser = perf-bench" "packages = linux-perf" "default_run = yes" >"$tmp/wd/b.wl"
is "default_run = yes puts a program workload into the default run" "$(wl_files "$tmp/wd" "")" "$tmp/wd/b.wl"

# The shipped program workloads load in every mode, and each point's
# command has no {placeholder} left.
r=0 progs=0
for f in "$top"/workloads/*.wl; do
	grep -q '^command *=' "$f" || continue
	progs=$((progs + 1))
	for mode in "QUICK=1" "MATRIX=claims" "MATRIX=small" "MATRIX=full"; do
		# shellcheck disable=SC2016 # the inner bash's own $1 and $2
		if ! out=$(env "$mode" bash -c '. "$1/scripts/lib.sh"; . "$1/workloads/wl.sh"; wl_load "$2"
			while IFS=$'"'\t'"' read -r pt _; do for v in ${WL[matrix.vcpus]}; do wl_command "$pt" "$v" default; done; done < <(wl_points)' _ "$top" "$f" 2>&1); then
			r=1; diag "$f ($mode): $out"
		fi
		case "$out" in *'{'*) r=1; diag "$f ($mode): a placeholder left: $out" ;; esac
	done
done
[ "$progs" -ge 4 ] || r=1
ok "$r" "the $progs shipped program workloads load under QUICK=1 and every MATRIX=, every command whole"

# guest/run.sh runs a program point on this host (perf bench sched pipe
# only uses pipes): each sample in its own directory, the rows in the
# workload's CSV, the output kept.
mkdir -p "$tmp/g/bin/parsers" "$tmp/gr"
cp "$top/guest/run.sh" "$tmp/g/run"
cp "$top/bench/perfstat2csv.sh" "$tmp/g/bin/"
cp "$parse" "$top"/workloads/parsers/*.awk "$tmp/g/bin/parsers/"
printf 'pipe\t@perf-bench\tdefault\tvcpus=1;loops=500\t3\t1\ticount\tstdout\tperf bench sched pipe -l 500\n' >"$tmp/g/plan.tsv"
printf 'bad\t@perf-bench\tdefault\tvcpus=1\t2\t0\ticount\tstdout\techo not perf\n' >>"$tmp/g/plan.tsv"
printf 'fails\t@perf-bench\tdefault\tvcpus=1\t2\t0\ticount\tstdout\techo oops >&2; exit 3\n' >>"$tmp/g/plan.tsv"
rc=0
KB_QUIESCE_MS=200 sh "$tmp/g/run" "$tmp/gr" >"$tmp/gout" 2>&1 || rc=$?
csv=$tmp/gr/raw/pipe.csv
[ "$(head -n 1 "$csv" 2>/dev/null)" = "workload,variant,point,metric,unit,better,clock,rep,value" ] &&
	[ "$(grep -c '^pipe,default,vcpus=1;loops=500,usecs_per_op,us,lower,icount,[123],[0-9.]*$' "$csv")" = 3 ] &&
	[ "$(grep -c . "$csv")" = 10 ] && r=0 || r=1
ok "$r" "guest/run.sh: a program point's 3 samples, 3 rows each, in kbbench's CSV layout"
[ "$r" = 0 ] || diag "$(cat "$tmp/gout" "$csv" 2>/dev/null)"
d=$tmp/gr/output/pipe/default-vcpus_1_loops_500
[ -s "$d/warmup1/stdout" ] && [ -s "$d/rep3/stdout" ] && [ "$(cat "$d/rep1/exit-status")" = 0 ] &&
	[ "$(cat "$d/rep2/command")" = "perf bench sched pipe -l 500" ] && [ ! -e "$d/rep4" ] && r=0 || r=1
ok "$r" "guest/run.sh keeps each sample's output, warm-up too: output/pipe/default-vcpus_1_loops_500/{warmup1,rep1..3}"
grep -Eq '^(quiet after [0-9]+ ms|the system did not go quiet in 200 ms \([0-9]+ % busy)' "$d/quiesce.txt" && r=0 || r=1
ok "$r" "before its samples the point waits for the CPUs to go quiet, as kbbench does: $(cat "$d/quiesce.txt" 2>&1)"
[ "$rc" = 1 ] && grep -q "error: bad point=vcpus=1 variant=default: rep1: kbench: error: parser perf-bench: .*rep1/stdout: line 1: expected" "$tmp/gout" &&
	[ -f "$tmp/gr/raw/bad.failed-2.csv" ] && [ ! -f "$tmp/gr/raw/bad.csv" ] && r=0 || r=1
ok "$r" "output the parser refuses fails the point, naming the sample and why; no CSV that looks whole (exit $rc)"
[ "$r" = 0 ] || diag "$(cat "$tmp/gout")"
grep -q "error: fails point=vcpus=1 variant=default: rep1: the command exited 3: oops" "$tmp/gout" &&
	[ -f "$tmp/gr/raw/fails.failed-3.csv" ] && r=0 || r=1
ok "$r" "a command that fails fails the point with its status and stderr"

# The image of a run with program workloads: images/build-image.sh
# --packages, keyed per package set.
bi() { env -u IMAGE KBENCH_CACHE="$tmp/icache" "$top/images/build-image.sh" "$@"; }
k0=$(bi --key)
k1=$(bi --key --packages "fio stress-ng")
k2=$(bi --key --packages "stress-ng fio fio")
k3=$(bi --key --packages "linux-perf procps")
case "$k1" in "$k0"-p[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) r=0 ;; *) r=1 ;; esac
[ "$k1" = "$k2" ] && [ "$k3" = "$k0" ] || r=1
ok "$r" "image key: the default plus -p<hash> of the set ($k1), in any order; packages.list's names add nothing ($k3)"
rc=0
bi --key --packages "--mode=unshare" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "^kbench: error: build-image.sh: --packages: '--mode=unshare' is not a Debian package name" "$tmp/err" && r=0 || r=1
ok "$r" "build-image.sh --packages refuses what is not a package name: $(cat "$tmp/err")"
rc=0
bi --path --packages fio >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "with the extra packages fio; run: images/build-image.sh --packages 'fio'" "$tmp/err" && r=0 || r=1
ok "$r" "build-image.sh --path: no image with these packages yet, and how to build it"

# orchestrate/run.sh: WORKLOADS=perf-sched-pipe puts the program into
# the plan (no kbbench check), the parsers into the payload; stopped at
# the first boot (the kernel is a stand-in that never boots).
mkdir -p "$tmp/cache/labels/fake"
: >"$tmp/cache/labels/fake/bzImage"
fake_image "$tmp/image.qcow2"
env KBENCH_CACHE="$tmp/cache" WORKLOADS=perf-sched-pipe QUICK=1 BOOTS=1 IMAGE="$tmp/image.qcow2" \
	ACCEL=tcg timeout 20 "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/rout" 2>&1 || true
is "run.sh: the program point's plan line" "$(cat "$tmp/run/payload/v1/plan.tsv" 2>/dev/null)" \
	"$(printf 'perf-sched-pipe\t@perf-bench\tdefault\tvcpus=1;loops=2000\t3\t0\ticount\tstdout\tperf bench sched pipe -l 2000')"
[ -f "$tmp/run/payload/v1/bin/parsers/parse.sh" ] && [ -f "$tmp/run/payload/v1/bin/parsers/perf-bench.awk" ] &&
	grep -q "boot 1/1" "$tmp/rout" && r=0 || r=1
ok "$r" "run.sh: the parsers are in the payload, and the run goes on to its boot"
[ "$r" = 0 ] || diag "$(cat "$tmp/rout")"
exit "$fail"
