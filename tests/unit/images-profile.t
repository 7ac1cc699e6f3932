#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# images/boot-profile.sh without a VM: its payload is valid sh and
# collects what the summary reads, and --summary turns canned guest
# outputs into profile.txt (milestones, slowest initcalls, units' times
# and CPU, cloud-init blame, import costs).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
bp=$top/images/boot-profile.sh

echo "1..15"
"$bp" --print-payload >"$tmp/run"
t "the payload's run is valid sh" sh -n "$tmp/run"
for f in dmesg.txt journal.txt units.props unit-cpu.txt cloud-init-blame.txt importtime.txt; do
	t "the payload writes $f" grep -q "\"\$r/$f\"" "$tmp/run"
done

r=$tmp/out/results
mkdir -p "$r"
cat >"$r/journal.txt" <<'J'
[    0.722333] kbench kernel: Run /sbin/init as init process
[    1.229380] kbench systemd[1]: Queued start job for default target multi-user.target.
[    2.073063] kbench systemd[1]: Reached target multi-user.target - Multi-User System.
[    3.299917] kbench cloud-init[93]: Cloud-init v. 22.4.2 running 'init' at Sun. Up 3.23 seconds.
J
echo 3.74 >"$r/runcmd-uptime"
cat >"$r/dmesg.txt" <<'D'
[    0.4] initcall small_init+0x0/0x10 returned 0 after 12 usecs
[    0.5] initcall init_kprobe_trace+0x0/0x1d0 returned 0 after 84849 usecs
D
printf 'Id=a.service\nInactiveExitTimestampMonotonic=1000000\nActiveEnterTimestampMonotonic=1250000\n\nId=b.target\nInactiveExitTimestampMonotonic=0\nActiveEnterTimestampMonotonic=5\n' >"$r/units.props"
printf '1480000 cloud-final.service\n356000 init.scope\n' >"$r/unit-cpu.txt"
printf -- '-- Boot Record 01 --\n     00.07100s (init-network/search-NoCloudNet)\n' >"$r/cloud-init-blame.txt"
cat >"$r/importtime.txt" <<'I'
import time: self [us] | cumulative | imported package
import time:       803 |     204157 |         requests
import time:      1675 |     778761 | cloudinit.cmd.main
I
t "--summary writes profile.txt" "$bp" --summary "$tmp/out"
p=$tmp/out/profile.txt
t "milestones: runcmd" grep -qx '3.74 runcmd started' "$p"
t "milestones: cloud-init's start" grep -q '^3.299917 cloud-init\[93\]: Cloud-init' "$p"
t "slowest initcall first, in ms" grep -qx '    84.8 init_kprobe_trace+0x0/0x1d0' "$p"
t "unit start to active, units never started left out" \
	bash -c "grep -qx '   0.250 a.service' '$p' && ! grep -q 'b.target' '$p'"
t "cgroup CPU in s" grep -qx '   1.480 cloud-final.service' "$p"
t "import total and top-level packages" bash -c "grep -qx '   778.8 total' '$p' && grep -qx '   204.2 requests' '$p'"
if "$bp" --summary "$tmp/none" 2>/dev/null; then ok 1 "--summary without results fails"; else ok 0 "--summary without results fails"; fi
exit "$fail"
