# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Edits of a scratch copy and what they do to a cache key: the kernel's
# (kernel-key.t), the image's (image-key.t) and the selftests'
# (selftests-key.t). The caller sets tmp, k (the copy), $tmp/pristine
# (the copy as it was), k0 (the key before any edit) and defines key
# (prints the key); it may define key_restore_more (more to put back
# after each edit) and key_diag (what to show when a key moved).
# Needs tests/lib/tap.sh.
# shellcheck disable=SC2154 # tmp, k and k0 are the caller's

# edit FILE SED-EXPR: change FILE in the copy; fails if nothing changed.
edit() {
	cp "$1" "$tmp/before"
	sed -i -e "$2" "$1"
	! cmp -s "$tmp/before" "$1"
}

# restore: back to the pristine copy.
restore() {
	rm -rf "$k"
	cp -r "$tmp/pristine" "$k"
	! declare -F key_restore_more >/dev/null || key_restore_more
}

# key_case same|differs DESC FILE SED-EXPR: the edit changes FILE, and
# the key stays (same) or moves (differs).
key_case() {
	local want=$1 nk
	shift
	restore
	if ! edit "$2" "$3"; then
		ok 1 "$1 (the edit did not apply: $3)"
	elif ! nk=$(key 2>"$tmp/key.err"); then
		ok 1 "$1 (the key could not be computed: $(cat "$tmp/key.err"))"
	elif [ "$want" = same ] && [ "$nk" = "$k0" ]; then
		ok 0 "$1"
	elif [ "$want" = differs ] && [ "$nk" != "$k0" ]; then
		ok 0 "$1"
	elif [ "$want" = same ]; then
		ok 1 "$1 (key $nk, was $k0)"
		! declare -F key_diag >/dev/null || key_diag
	else
		ok 1 "$1 (key still $k0)"
	fi
}

same() { key_case same "$@"; }
differs() { key_case differs "$@"; }
