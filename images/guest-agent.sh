#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kbench guest agent: runs as cloud-init's runcmd (seed.sh embeds this file
# in the NoCloud user-data), as root, under /bin/sh.
#   1. find the payload and results disks by their virtio serial
#      (/sys/block/vdX/serial: kbpayload, kbresults; no udev needed)
#   2. tar -xf <payload disk> -C /kb/payload
#   3. /kb/payload/run /kb/results  >results/run.log 2>&1, status in
#      results/exit-status
#   4. tar -cf <results disk> -C /kb/results .   (also when the runner failed)
#   5. sync, power off
# Progress lines go to the console (the host's serial.log), prefixed
# "kbench-guest:"; the host's launcher looks for them.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
HOME=/root
export HOME

kb_log() {
	echo "kbench-guest: $*" >/dev/console 2>/dev/null || echo "kbench-guest: $*"
	[ -d /kb/results ] && echo "$*" >>/kb/results/agent.log
	return 0
}

kb_off() {
	sync
	kb_log "poweroff"
	poweroff -f 2>/dev/null
	# No systemd (a user image): ask the kernel directly.
	echo o >/proc/sysrq-trigger
	sleep 60
}

# Print /dev/vdX for the virtio disk whose serial is $1.
kb_disk() {
	for d in /sys/block/*; do
		if [ "$(cat "$d/serial" 2>/dev/null)" = "$1" ]; then
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	if [ -e "/dev/disk/by-id/virtio-$1" ]; then
		readlink -f "/dev/disk/by-id/virtio-$1"
		return 0
	fi
	return 1
}

up=$(cut -d' ' -f1 /proc/uptime)
mkdir -p /kb/payload /kb/results
kb_log "runcmd-start uptime=$up"
echo "$up" >/kb/results/runcmd-uptime

if ! res=$(kb_disk kbresults); then
	kb_log "error: no results disk (virtio serial kbresults)"
	kb_off
fi
if ! pay=$(kb_disk kbpayload); then
	kb_log "error: no payload disk (virtio serial kbpayload)"
	echo 125 >/kb/results/exit-status
elif ! tar -xf "$pay" -C /kb/payload 2>>/kb/results/agent.log; then
	kb_log "error: cannot extract the payload from $pay"
	echo 126 >/kb/results/exit-status
elif [ ! -x /kb/payload/run ]; then
	kb_log "error: the payload has no executable 'run'"
	echo 127 >/kb/results/exit-status
else
	kb_log "runner-start payload=$pay results=$res"
	rc=0
	(cd /kb/payload && exec ./run /kb/results) </dev/null >/kb/results/run.log 2>&1 || rc=$?
	echo "$rc" >/kb/results/exit-status
	kb_log "runner-exit status=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
fi

# MANIFEST (every file's sha256) goes last into the results tar: the host
# accepts the results only if it is there and every file matches it, so a
# tar cut short by a full disk is never taken for complete results.
sync
rm -f /kb/results/MANIFEST
(cd /kb/results && find . -type f | LC_ALL=C sort >/kb/files.list &&
	tr '\n' '\0' </kb/files.list | xargs -0 -r sha256sum >/kb/MANIFEST.tmp) ||
	kb_log "error: cannot checksum the results (guest disk full?)"
mv /kb/MANIFEST.tmp /kb/results/MANIFEST 2>/dev/null || true
echo ./MANIFEST >>/kb/files.list
need=$(tar -cf - -C /kb/results -T /kb/files.list 2>/dev/null | wc -c)
have=$(blockdev --getsize64 "$res" 2>/dev/null || echo 0)
if [ "$have" -gt 0 ] && [ "$need" -gt "$have" ]; then
	# Too large: say so in a small tar the host reads, without MANIFEST.
	kb_log "error: the results are $need bytes, the results disk holds $have"
	echo "results are $need bytes, the results disk holds $have bytes" >/kb/results/results-overflow
	tar -cf "$res" -C /kb/results ./results-overflow ./exit-status ./agent.log 2>/dev/console
elif tar -cf "$res" -C /kb/results -T /kb/files.list 2>/dev/console; then
	kb_log "results-written $res"
else
	kb_log "error: writing the results to $res failed"
fi
kb_off
