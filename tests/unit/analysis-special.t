#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The special functions of kbstat's statistics (analysis/stats.c, from
# libgsl and libm): the normal's upper tail and quantile, Student's t's
# two-sided tail and quantile, the chi-square's upper tail, through
# kbstat calc, against reference values from sources that share no code
# with them:
#   - published tables, 3 decimals: Student's t (one-sided 0.05, 0.025,
#     0.005), chi-square 0.05 and standard normal critical values;
#   - Python 3.11.7's statistics.NormalDist().inv_cdf (Wichura's AS241,
#     in pure Python); not NormalDist().cdf, which is math.erfc, the
#     libm function normal_upper itself calls;
#   - closed forms of the t tail and quantile at df 1, 2 and 3 and the
#     chi-square tail at df 1, 2 and 4, evaluated with mpmath 1.3.0 at
#     50 digits; mpmath's betainc and gammainc at other df.
# Within 1e-12 relative of the precise ones (the old hand-written
# quantiles were within 1.1e-12, by bisection), and within the rounding
# of the tables' last digit.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
build_kbstat

echo "1..10"

# against DESC FN RTOL < LINES: each line is kbstat calc FN's arguments
# and the value wanted last; passes if every result is within RTOL of it,
# relative (absolute where the value wanted is 0).
against() {
	local desc=$1 fn=$2 rtol=$3 line got want r=0 worst=0
	local -a a
	while read -r line; do
		[ -n "$line" ] || continue
		read -r -a a <<<"$line"
		want=${a[-1]}
		unset 'a[-1]'
		got=$("$kbstat" calc "$fn" "${a[@]}") || got=error
		worst=$(awk -v g="$got" -v w="$want" -v m="$worst" 'BEGIN {
			d = g - w; if (d < 0) d = -d
			if (w != 0) d /= (w < 0 ? -w : w)
			print (g == "error" || d > m) ? (g == "error" ? 1 : d) : m }')
		if ! awk -v g="$got" -v w="$want" -v t="$rtol" 'BEGIN {
			d = g - w; if (d < 0) d = -d
			lim = t * (w < 0 ? -w : w); if (w == 0) lim = t
			exit !(g != "error" && d <= lim) }'; then
			diag "calc $fn ${a[*]}: got $got, want $want (within $rtol)"
			r=1
		fi
	done
	ok "$r" "$desc (largest relative difference $worst)"
}

# bracket DESC FN WANT X ARGS...: the value FN reaches WANT at lies in
# [X - 0.0005, X + 0.0005], X being a table's value rounded to 3 decimals
# (FN decreasing in X).
bracket() {
	local desc=$1 fn=$2 want=$3 x=$4 lo hi
	shift 4
	lo=$("$kbstat" calc "$fn" "$(awk -v x="$x" 'BEGIN { printf "%.4f", x - 0.0005 }')" "$@")
	hi=$("$kbstat" calc "$fn" "$(awk -v x="$x" 'BEGIN { printf "%.4f", x + 0.0005 }')" "$@")
	if awk -v lo="$lo" -v hi="$hi" -v w="$want" 'BEGIN { exit !(lo >= w && w >= hi) }'; then
		return 0
	fi
	diag "$desc: calc $fn at $x -+ 0.0005 $*: $lo .. $hi does not bracket $want"
	return 1
}

# Student's t table, one-sided upper 0.05, 0.025, 0.005 (two-sided
# 0.10, 0.05, 0.01): df, then the three critical values.
t_table='1 6.314 12.706 63.657
2 2.920 4.303 9.925
5 2.015 2.571 4.032
10 1.812 2.228 3.169
30 1.697 2.042 2.750'
r=0
while read -r df q05 q025 q005; do
	for pq in "0.05 $q05" "0.025 $q025" "0.005 $q005"; do
		read -r p q <<<"$pq"
		got=$("$kbstat" calc t-q "$p" "$df")
		awk -v g="$got" -v w="$q" 'BEGIN { d = g - w; exit !(d <= 0.0005 && d >= -0.0005) }' ||
			{ diag "t-q $p $df: got $got, table $q"; r=1; }
		bracket "t table" t "$(awk -v p="$p" 'BEGIN { print 2 * p }')" "$q" "$df" || r=1
	done
done <<<"$t_table"
ok "$r" "t quantiles and two-sided tails at df 1, 2, 5, 10, 30 agree with the t table (3 decimals)"

# chi-square table, upper 0.05: df and the critical value
r=0
while read -r df x; do
	bracket "chi-square table" chisq 0.05 "$x" "$df" || r=1
done <<<'1 3.841
2 5.991
3 7.815
4 9.488
5 11.070
10 18.307'
ok "$r" "chi-square upper tails at df 1-5 and 10 agree with the chi-square table's 0.05 values"

# standard normal table: z of upper 0.05, 0.025, 0.005, and the upper
# tail at z = 1.96 (0.0250, 4 decimals)
r=0
for pz in "0.05 1.645" "0.025 1.960" "0.005 2.576"; do
	read -r p z <<<"$pz"
	got=$("$kbstat" calc normal-q "$p")
	awk -v g="$got" -v w="$z" 'BEGIN { d = g - w; exit !(d <= 0.0005 && d >= -0.0005) }' ||
		{ diag "normal-q $p: got $got, table $z"; r=1; }
done
got=$("$kbstat" calc normal 1.96)
awk -v g="$got" 'BEGIN { exit !(g >= 0.02495 && g <= 0.02505) }' || { diag "normal 1.96: $got"; r=1; }
ok "$r" "normal quantiles and upper tail agree with the normal table"

# z with P(Z >= z) = p: -NormalDist().inv_cdf(p), Python 3.11.7
against "normal quantile = Python's NormalDist().inv_cdf (AS241)" normal-q 1e-12 <<'EOF'
0.25 0.6744897501960817
0.1 1.2815515655446008
0.05 1.6448536269514726
0.025 1.9599639845400538
0.01 2.3263478740408408
0.005 2.5758293035489
0.001 3.090232306167813
0.0001 3.71901648545568
1e-06 4.753424308822899
1e-09 5.9978070150076865
EOF
# ... and the upper tail at those z is p
against "normal upper tail at NormalDist().inv_cdf's z gives p back" normal 1e-12 <<'EOF'
0.6744897501960817 0.25
1.2815515655446008 0.1
1.6448536269514726 0.05
1.9599639845400538 0.025
2.3263478740408408 0.01
2.5758293035489 0.005
3.090232306167813 0.001
3.71901648545568 0.0001
4.753424308822899 1e-06
5.9978070150076865 1e-09
EOF

# t quantile, closed forms: df 1 (Cauchy) tan(pi (1/2 - p)); df 2
# (1 - 2p) / sqrt(2 p (1 - p))
against "t quantile at df 1: tan(pi (1/2 - p))" t-q 1e-12 <<'EOF'
0.4 1 0.32491969623290625
0.25 1 1.0
0.1 1 3.0776835371752532
0.05 1 6.3137515146750427
0.025 1 12.706204736174704
0.005 1 63.65674116287158
0.001 1 318.30883898555044
0.0001 1 3183.0987571181508
EOF
against "t quantile at df 2: (1 - 2p) / sqrt(2p (1 - p))" t-q 1e-12 <<'EOF'
0.4 2 0.28867513459481282
0.25 2 0.81649658092772603
0.1 2 1.8856180831641267
0.05 2 2.9199855803537256
0.025 2 4.3026527297494637
0.005 2 9.924843200918293
0.001 2 22.327124770119875
0.0001 2 70.700071074964276
EOF

# P(|T| >= t), closed forms: df 1: 1 - 2 atan(t) / pi; df 2:
# 1 - t / sqrt(2 + t^2); df 3: 1 - 2/pi (atan(t/sqrt 3) + (t/sqrt 3) /
# (1 + t^2/3)); other df: mpmath's betainc(df/2, 1/2, 0, df/(df + t^2))
against "t two-sided tail at df 1, 2, 3: closed forms" t 1e-12 <<'EOF'
0.1 1 0.93654896513889286
0.5 1 0.70483276469913345
1 1 0.5
2 1 0.29516723530086655
5 1 0.12566591637800237
30 1 0.021212804811070847
0.1 2 0.92946543841414017
0.5 2 0.66666666666666667
2 2 0.18350341907227397
5 2 0.037749551350623726
30 2 0.0011092626819596589
0.1 3 0.92665234880080582
1 3 0.39100221895577064
3 3 0.057668885622437309
10 3 0.0021283990584141501
30 3 8.1352804271639595e-5
EOF
against "t two-sided tail at df 2.7, 7.3, 31, 100: mpmath betainc" t 1e-12 <<'EOF'
0.5 2.7 0.65494706199576148
2 2.7 0.14942343807050201
10 2.7 0.0032876560646891924
0.5 7.3 0.63179352680444153
4 7.3 0.0047623671643271079
10 7.3 1.6100255201481014e-5
2 31 0.054327215367175708
4 31 0.00036530505356464481
10 31 3.2047954918308863e-11
2 100 0.04821217873113368
10 100 9.9016889845941392e-17
EOF

# P(chi-square >= x), closed forms: df 1: erfc(sqrt(x/2)); df 2:
# exp(-x/2); df 4: exp(-x/2) (1 + x/2); df 3: mpmath's gammainc
against "chi-square upper tail at df 1, 2, 3, 4: closed forms and mpmath gammainc" chisq 1e-12 <<'EOF'
0.1 1 0.75182963404584928
1 1 0.3173105078629141
3.841 1 0.050013683763956699
10 1 0.0015654022580025497
40 1 2.539628589470865e-10
200 1 2.0884875837625448e-45
0.1 2 0.95122942450071401
5 2 0.082084998623898795
40 2 2.0611536224385578e-9
200 2 3.720075976020836e-44
1 3 0.8012519569012008
10 3 0.018566135463043233
200 3 4.2185411071920423e-43
1 4 0.90979598956895014
10 4 0.040427681994512803
200 4 3.7572767357810443e-42
0 4 1
EOF

exit "$fail"
