#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest/checks.sh judges the kernel log of each topic's check with the
# one splat scan (kernel/scripts/splat-scan.sh, shipped beside it by
# checks-payload.sh): a WARNING logged while a check runs fails that
# topic even when its programs passed, the report lands in
# checks/<topic>/splats.txt, and an allocation failure inside a fault
# injection window does not. The payload's run (guest/checks-run.sh),
# the one runner of every checks boot, writes the boot's facts and the
# checks' exit status and exits 0. Runs on the host with stand-ins for
# dmesg and perf.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..9"

# dmesg prints the log file a topic's boot-check appends to
mkdir -p "$tmp/bin" "$tmp/pay/checks"
printf '#!/bin/sh\ncat "%s"\n' "$tmp/kmsg" >"$tmp/bin/dmesg"
printf '#!/bin/sh\necho " 1.00 msec task-clock" >&2\n' >"$tmp/bin/perf"
chmod +x "$tmp/bin/dmesg" "$tmp/bin/perf"
printf '[    1.0] an earlier WARNING: before any check, not theirs\n' >"$tmp/kmsg"
cp "$top/guest/checks.sh" "$tmp/pay/checks.sh"
cp "$top/guest/klog.sh" "$tmp/pay/klog.sh"
cp "$top/kernel/scripts/splat-scan.sh" "$tmp/pay/splat-scan.sh"
# the marks go to the stand-in's log, never to this machine's kernel
export KB_KMSG=$tmp/kmsg
topic() {
	mkdir -p "$tmp/pay/checks/$1"
	printf '#!/bin/sh\n%s\nexit 0\n' "$2" >"$tmp/pay/checks/$1/boot-check"
}
topic a-clean "echo '[    2.0] rhash: all good' >>$tmp/kmsg"
topic b-warn "printf '[    3.0] WARNING: CPU: 1 PID: 7 at kernel/bpf/x.c:12 f+0x1/0x2\n[    3.1] ---[ end trace 0 ]---\n' >>$tmp/kmsg"
# a check whose kernel log overflows the ring buffer: the log before it
# (its mark too) is gone, and its WARNING must still be seen
topic d-flood ": >$tmp/kmsg; printf '[    5.0] WARNING: CPU: 0 PID: 9 at mm/oom_kill.c:1 f+0x1/0x2\\n' >>$tmp/kmsg"
topic c-fault "printf '[    4.0] kbench-fault-injection: begin\n[    4.1] tmcheck: page allocation failure: order:0\n[    4.2] Call Trace:\n[    4.3] kbench-fault-injection: end\n' >>$tmp/kmsg"

rc=0
PATH=$tmp/bin:$PATH bash "$tmp/pay/checks.sh" "$tmp/res" 2>"$tmp/err" || rc=$?
ok "$( [ "$rc" = 1 ] && grep -q 'series checks failed: b-warn d-flood (' "$tmp/err" && echo 0 || echo 1)" \
	"a splat during b-warn's and d-flood's checks fails the run and names only those (exit $rc: $(cat "$tmp/err"))"
ok "$( [ "$(cat "$tmp/res/checks/b-warn/status")" = 1 ] &&
	grep -q 'WARNING: CPU: 1' "$tmp/res/checks/b-warn/splats.txt" &&
	grep -q 'splat during the check (checks/b-warn/splats.txt)' "$tmp/res/checks/b-warn/log" && echo 0 || echo 1)" \
	"b-warn: status 1, the splat in splats.txt, the log says where"
ok "$( [ "$(cat "$tmp/res/checks/a-clean/status")" = 0 ] && [ -f "$tmp/res/checks/a-clean/dmesg.txt" ] && ! grep -q WARNING "$tmp/res/checks/a-clean/dmesg.txt" && echo 0 || echo 1)" \
	"a-clean passes: the WARNING logged before its check is not in its dmesg.txt"
ok "$( [ "$(cat "$tmp/res/checks/c-fault/status")" = 0 ] && echo 0 || echo 1)" \
	"c-fault passes: an allocation failure inside a fault-injection window is expected"
ok "$( [ "$(cat "$tmp/res/checks/d-flood/status")" = 1 ] &&
	grep -q 'the mark scrolled out of the ring buffer' "$tmp/res/checks/d-flood/dmesg.txt" &&
	grep -q 'WARNING: CPU: 0 PID: 9' "$tmp/res/checks/d-flood/splats.txt" && echo 0 || echo 1)" \
	"d-flood: its mark scrolled out of the ring buffer, the whole log is judged and its WARNING fails it"
# a series with no checks still gets the runner and the scan
"$top/kernel/scripts/checks-payload.sh" "$tmp/no-such.series" "$tmp/p2" >/dev/null 2>"$tmp/err2" || true
ok "$(cmp -s "$top/kernel/scripts/splat-scan.sh" "$tmp/p2/splat-scan.sh" && cmp -s "$top/guest/klog.sh" "$tmp/p2/klog.sh" && echo 0 || echo 1)" \
	"checks-payload.sh ships the one splat scan and klog.sh beside checks.sh ($(head -c 200 "$tmp/err2"))"

# the runner: checks-payload.sh installs guest/checks-run.sh as run
cmp -s "$top/guest/checks-run.sh" "$tmp/p2/run" && [ -x "$tmp/p2/run" ] && r=0 || r=1
ok "$r" "checks-payload.sh installs the one checks runner as the payload's run"
cp "$top/guest/checks-run.sh" "$tmp/pay/run"
mkdir -p "$tmp/res2"
rc=0
PATH=$tmp/bin:$PATH sh "$tmp/pay/run" "$tmp/res2" >"$tmp/run.out" 2>&1 || rc=$?
miss=''
for f in uname.txt cmdline perf-stat.txt perf-rc loop-ns checks.out checks-rc dmesg.txt; do
	[ -s "$tmp/res2/$f" ] || miss="$miss $f"
done
ok "$( [ "$rc" = 0 ] && [ -z "$miss" ] && echo 0 || echo 1)" \
	"the runner exits 0 with every fact written although a check failed (exit $rc; missing:${miss:- none}; $(tail -n 1 "$tmp/run.out"))"
ok "$( [ "$(cat "$tmp/res2/checks-rc")" = 1 ] && grep -q 'series checks failed: b-warn' "$tmp/res2/checks.out" &&
	[ "$(wc -l <"$tmp/res2/loop-ns")" = 6 ] && [ "$(cat "$tmp/res2/perf-rc")" = 0 ] && echo 0 || echo 1)" \
	"checks-rc is checks.sh's exit (1, b-warn named in checks.out); six loop timings; perf's status"
exit "$fail"
