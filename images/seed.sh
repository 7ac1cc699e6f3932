#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make a NoCloud seed for one boot: DIR/user-data, DIR/meta-data and
# DIR/seed.img (iso9660, label cidata, made by cloud-localds).
# user-data's runcmd is images/guest-agent.sh, which runs the payload.
# Usage: seed.sh DIR [INSTANCE-ID]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	kb_die "usage: seed.sh DIR [INSTANCE-ID]"
fi
dir=$1
iid=${2:-kbench-$(date +%s)-$$}
command -v cloud-localds >/dev/null || kb_die "cloud-localds not found; run: make deps"
mkdir -p "$dir"

{
	echo '#cloud-config'
	echo '# kbench: run the payload, write the results back, power off.'
	echo 'runcmd:'
	echo '  - |'
	sed -e '/^[[:space:]]*#/d' -e 's/^/    /' -e 's/^    $//' "$here/guest-agent.sh"
} >"$dir/user-data"
printf 'instance-id: %s\nlocal-hostname: kbench\n' "$iid" >"$dir/meta-data"
cloud-localds "$dir/seed.img" "$dir/user-data" "$dir/meta-data" ||
	kb_die "cloud-localds failed to make $dir/seed.img"
kb_verbose "seed: $dir/seed.img (instance-id $iid)"
