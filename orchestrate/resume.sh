# SPDX-License-Identifier: GPL-2.0
# run.sh's resume: a run directory given again (RESUME=) only if its
# plan.id is this plan's; the boots BOOTS=auto added (RUN/plan.added);
# and BOOTS=auto's next round, which runs run.sh again with the same
# arguments. Sourced by orchestrate/run.sh.
# shellcheck shell=bash
# the globals (run, names, added_*, ...) are run.sh's and plan.sh's;
# what is set here is read there
# shellcheck disable=SC2154,SC2034

declare -A added_lines=()
added_boots=()

# resume_check: RUN/plan.id written, or compared with this plan (plan_id)
# before anything is written into RUN.
resume_check() {
	local newplan d
	newplan=$(mktemp "${TMPDIR:-/tmp}/kbench-plan.XXXXXX")
	plan_id >"$newplan"
	if [ -f "$run/plan.id" ]; then
		# the boots BOOTS=auto added ("added ..." lines) come from the data
		if ! cmp -s <(grep -v '^added ' "$run/plan.id") "$newplan"; then
			d=$(diff <(grep -v '^added ' "$run/plan.id") "$newplan" | grep '^[<>]' | head -n 4 |
				sed -e 's/^</  was:/' -e 's/^>/  now:/') || true
			rm -f "$newplan"
			kb_die "$run was made with another plan or other kernels, so it cannot be resumed with these settings; nothing was written to it. First differences:
$d
Resume with the settings it was made with (its plan: $run/plan.id), or start a new run (no RESUME=)."
		fi
		rm -f "$newplan"
	elif [ -d "$run/raw" ] && [ -n "$(ls -A "$run/raw")" ]; then
		rm -f "$newplan"
		kb_die "$run holds results but no plan.id (made by an older kbench): it cannot be checked, so it is not resumed; start a new run"
	else
		mkdir -p "$run"
		mv -f "$newplan" "$run/plan.id"
	fi
}

# resume_added: BOOTS=auto's added boots (RUN/plan.added: boot number,
# then the plan line of a point it runs), by vCPU count: added_boots[]
# ("V,B"), added_lines[V,B], and nboots counting them.
resume_added() {
	local ab line v
	added_lines=()
	added_boots=()
	[ -f "$run/plan.added" ] || return 0
	while IFS=$'\t' read -r ab line; do
		v=$(cut -f4 <<<"$line")
		v=${v%%;*}
		v=${v#vcpus=}
		[ -n "${added_lines[$v,$ab]:-}" ] || {
			added_boots+=("$v,$ab")
			nboots=$((nboots + ${#names[@]}))
		}
		added_lines[$v,$ab]+="$line
"
	done <"$run/plan.added"
}

# resume_auto: BOOTS=auto: the points the rule leaves undecided get one
# more boot pair, numbered after the run's last boot, then run.sh runs
# again (with the same arguments: the plan is checked, the done boots
# skipped).
resume_auto() {
	local last vb more und b
	[ "$auto" = 1 ] || return 0
	last=$BOOTS
	for vb in ${added_boots[@]+"${added_boots[@]}"}; do
		[ "${vb#*,}" -le "$last" ] || last=${vb#*,}
	done
	more=$("$here/adaptive.sh" "$run" "$BOOTS_MAX" "${names[@]}")
	und=$(awk -F'\t' 'NR > 1 && $7 == "continue"' "$run/sequential.tsv" | wc -l)
	kb_say "BOOTS=auto after $last boot(s) a kernel: $(awk -F'\t' 'NR > 1 { n[$7]++ } END { for (v in n) { printf "%s%d %s", s, n[v], v; s = ", " } }' "$run/sequential.tsv") (the rule's verdicts of the primary keys: $run/sequential.tsv)"
	if [ -n "$more" ] && [ "$last" -lt "$BOOTS_MAX" ]; then
		b=$((last + 1))
		resume_add_pair "$b" "$more" "$und"
		rm -rf "$tmpd"
		trap - EXIT
		BOOTS=auto exec "$0" "${args0[@]}"
	fi
	und=$(awk -F'\t' 'NR > 1 && ($7 == "continue" || $7 == "inconclusive")' "$run/sequential.tsv" | wc -l)
	[ "$und" = 0 ] || kb_say "BOOTS=auto: BOOTS_MAX=$BOOTS_MAX reached with $und key(s) undecided: they stay inconclusive (a larger BOOTS_MAX would add more pairs)"
}

# resume_add_pair B MORE UND: boot pair B for the points MORE (workload,
# variant, point a line) into RUN/plan.added and RUN/plan.id.
resume_add_pair() {
	local b=$1 more=$2 und=$3 w var pt v
	while IFS=$'\t' read -r w var pt; do
		# the point's plan line, from its vCPU count's plan
		v=${pt%%;*}
		v=${v#vcpus=}
		awk -F'\t' -v w="$w" -v var="$var" -v pt="$pt" -v b="$b" -v OFS='\t' \
			'$1 == w && $3 == var && $4 == pt { print b, $0 }' "$run/payload/v$v/plan.tsv"
	done <<<"$more" >"$tmpd/added"
	[ -s "$tmpd/added" ] || kb_die "BOOTS=auto: the undecided points ($(tr '\n\t' '; ' <<<"$more")) are not in $run/payload/v*/plan.tsv"
	cat "$tmpd/added" >>"$run/plan.added"
	cut -f2- "$tmpd/added" | sed "s/^/added boot $b: point /" >>"$run/plan.id"
	kb_say "BOOTS=auto: $und key(s) undecided: boot pair $b of at most $BOOTS_MAX for $(grep -c . "$tmpd/added") point(s): $(cut -f2,4,5 "$tmpd/added" | tr '\n\t' ' ;')"
}
