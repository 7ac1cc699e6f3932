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

sync
if tar -cf "$res" -C /kb/results . 2>/dev/console; then
	kb_log "results-written $res"
else
	kb_log "error: writing the results to $res failed (too large? see --results-mb)"
fi
kb_off
