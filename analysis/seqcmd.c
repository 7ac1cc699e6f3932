// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat sequential: the adaptive-boots rule's bounds, one decision,
 * and its seeded simulation (seq.c; analysis/README.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw.h"
#include "seq.h"
#include "stats.h"
#include "seqcmd.h"
#include "util.h"

static const char seq_usage[] =
	"usage:\n"
	"  kbstat sequential bounds --boots-max N [PLAN]\n"
	"  kbstat sequential decide --boots-max N [PLAN] [--floor F] [--better lower|higher] BASE... -- NEW...\n"
	"  kbstat sequential run RUN --base LABEL --new LABEL --boots-max N [PLAN] [--floor F]\n"
	"  kbstat sequential sim --boots-max N [PLAN] --effect E --boot-sd SD [--cv CV] [--samples N]\n"
	"                        [--runs N] [--seed N] [--floor F] [--naive]\n"
	"PLAN: [--first N (3)] [--alpha A (0.05, one-sided)] [--spend obf|pocock (obf)]\n"
	"BASE, NEW: each boot's median of the metric (> 0), in boot order.\n";

static int bad(const char *what, const char *val)
{
	fprintf(stderr, "kbstat: sequential: bad %s '%s'\n%s", what, val,
		seq_usage);
	return 2;
}

static int num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

static int inum(const char *s, int *out)
{
	double d;

	if (num(s, &d) || d != floor(d) || d < 0 || d > 1e9)
		return -1;
	*out = (int)d;
	return 0;
}

/*
 * Every judged key of a run: its verdict under the plan from the boots
 * it has (the orchestration adds a pair to the keys that print
 * "continue"). A key with a sample <= 0 is compared as a difference by
 * kbstat compare, which this rule does not cover: "n/a".
 */
static int seq_run(const struct seq_plan *p, const char *run,
		   const char *base, const char *new, double fl)
{
	long kern[2];
	struct raw raw;
	size_t k, s, b;

	if (raw_load(run, &raw))
		return 1;
	kern[0] = raw_kernel(&raw, base);
	kern[1] = raw_kernel(&raw, new);
	if (kern[0] < 0 || kern[1] < 0) {
		fprintf(stderr, "kbstat: sequential: %s has no kernel '%s'\n",
			run, kern[0] < 0 ? base : new);
		raw_free(&raw);
		return 1;
	}
	printf("workload\tvariant\tpoint\tmetric\tverdict\tboots\tratio\tlo\thi\tlevel\n");
	for (k = 0; k < raw.nkeys; k++) {
		const struct key *kk = &raw.keys[k];
		struct boot_set bs[2];
		double *m[2];
		size_t nm[2];
		int pos = 1;
		struct seq_result r;

		if (kk->better == BETTER_NONE)
			continue;
		for (s = 0; s < 2; s++) {
			raw_boot_set(&raw, k, (size_t)kern[s], &bs[s]);
			m[s] = xmalloc((bs[s].nboots + 1) * sizeof(double));
			nm[s] = 0;
			for (b = 0; b < bs[s].nboots; b++) {
				double med;
				size_t i;

				if (!bs[s].len[b])
					continue;
				for (i = 0; i < bs[s].len[b]; i++)
					pos &= bs[s].val[b][i] > 0;
				med = median_of(bs[s].val[b], bs[s].len[b]);
				m[s][nm[s]++] = med > 0 ? log(med) : 0;
			}
		}
		printf("%s\t%s\t%s\t%s\t", kk->workload, kk->variant, kk->point,
		       kk->metric);
		if (!pos) {
			printf("n/a\t%zu\t\t\t\t\n", nm[0] < nm[1] ? nm[0] : nm[1]);
		} else {
			seq_decide(p, m[0], nm[0], m[1], nm[1], fl,
				   kk->better == BETTER_LOWER, &r);
			printf("%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\n",
			       seq_verdict_name(r.verdict), r.n, exp(r.est),
			       exp(r.lo), exp(r.hi), r.level);
		}
		for (s = 0; s < 2; s++) {
			free(m[s]);
			boot_set_free(&bs[s]);
		}
	}
	raw_free(&raw);
	return fflush(stdout) ? 1 : 0;
}

int cmd_sequential(int argc, char **argv)
{
	const char *run = NULL, *base = NULL, *new = NULL;
	int first = 3, max = 0, lower = 1, naive = 0, a, i, sep = -1;
	double alpha = 0.05, fl = 0.01, d;
	struct seq_sim sim = { .cv = 0.001, .samples = 25, .runs = 2000,
			       .seed = 1, .effect = NAN, .boot_sd = NAN };
	enum seq_spend spend = SEQ_OBF;
	struct seq_plan plan;
	const char *what;
	double *v;
	int nv = 0;

	if (argc < 1) {
		fputs(seq_usage, stderr);
		return 2;
	}
	what = argv[0];
	v = xmalloc((size_t)argc * sizeof(*v));
	a = 1;
	if (!strcmp(what, "run")) {
		if (argc < 2)
			return bad("run", "(need RUN)");
		run = argv[1];
		a = 2;
	}
	for (; a < argc; a++) {
		const char *o = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(o, "--naive")) {
			naive = 1;
			continue;
		}
		if (!strcmp(o, "--")) {
			sep = nv;
			continue;
		}
		if (strncmp(o, "--", 2)) {
			if (num(o, &d) || d <= 0)
				return bad("boot median", o);
			v[nv++] = d;
			continue;
		}
		if (!val)
			return bad("option (no value)", o);
		a++;
		if (!strcmp(o, "--base") && run) {
			base = val;
		} else if (!strcmp(o, "--new") && run) {
			new = val;
		} else if (!strcmp(o, "--boots-max")) {
			if (inum(val, &max))
				return bad("--boots-max", val);
		} else if (!strcmp(o, "--first")) {
			if (inum(val, &first))
				return bad("--first", val);
		} else if (!strcmp(o, "--alpha")) {
			if (num(val, &alpha))
				return bad("--alpha", val);
		} else if (!strcmp(o, "--spend")) {
			if (seq_spend_parse(val, &spend))
				return bad("--spend", val);
		} else if (!strcmp(o, "--floor")) {
			if (num(val, &fl) || fl < 0 || fl >= 1)
				return bad("--floor", val);
		} else if (!strcmp(o, "--better")) {
			if (strcmp(val, "lower") && strcmp(val, "higher"))
				return bad("--better", val);
			lower = !strcmp(val, "lower");
		} else if (!strcmp(o, "--effect")) {
			if (num(val, &sim.effect) || sim.effect <= -1)
				return bad("--effect", val);
		} else if (!strcmp(o, "--boot-sd")) {
			if (num(val, &sim.boot_sd) || sim.boot_sd < 0)
				return bad("--boot-sd", val);
		} else if (!strcmp(o, "--cv")) {
			if (num(val, &sim.cv) || sim.cv < 0)
				return bad("--cv", val);
		} else if (!strcmp(o, "--samples")) {
			if (inum(val, &sim.samples) || sim.samples < 1)
				return bad("--samples", val);
		} else if (!strcmp(o, "--runs")) {
			if (inum(val, &sim.runs) || sim.runs < 1)
				return bad("--runs", val);
		} else if (!strcmp(o, "--seed")) {
			if (num(val, &d) || d < 0 || d != floor(d))
				return bad("--seed", val);
			sim.seed = (unsigned long long)d;
		} else {
			return bad("option", o);
		}
	}
	if (!max)
		return bad("--boots-max", "(missing)");
	if (seq_plan_init(&plan, first, max, alpha, spend))
		return bad("plan (need 2 <= --first <= --boots-max, at most 256 looks, 0 < --alpha < 0.5)",
			   "");

	if (!strcmp(what, "bounds")) {
		if (nv)
			return bad("argument", "(bounds takes no values)");
		printf("boots\tz\tlevel\tspent\n");
		for (i = 0; i < plan.nlooks; i++)
			printf("%d\t%.4f\t%.6g\t%.6g\n", first + i, plan.z[i],
			       plan.level[i], plan.spent[i]);
	} else if (!strcmp(what, "decide")) {
		struct seq_result r;

		if (sep < 0)
			return bad("values", "(need BASE... -- NEW...)");
		for (i = 0; i < nv; i++)
			v[i] = log(v[i]);
		seq_decide(&plan, v, (size_t)sep, v + sep, (size_t)(nv - sep),
			   fl, lower, &r);
		/* verdict, boots a side, ratio and its interval, level */
		printf("%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\n",
		       seq_verdict_name(r.verdict), r.n, exp(r.est), exp(r.lo),
		       exp(r.hi), r.level);
	} else if (!strcmp(what, "run")) {
		if (nv || !base || !new)
			return bad("run arguments", "(need --base and --new, no values)");
		free(v);
		return seq_run(&plan, run, base, new, fl);
	} else if (!strcmp(what, "sim")) {
		struct seq_sim_out o;

		if (nv || isnan(sim.effect) || isnan(sim.boot_sd))
			return bad("sim arguments", "(need --effect and --boot-sd, no values)");
		sim.floor = fl;
		sim.naive = naive;
		seq_simulate(&plan, &sim, &o);
		printf("rule=%s spend=%s alpha=%g first=%d boots_max=%d effect=%g boot_sd=%g cv=%g samples=%d floor=%g seed=%llu runs=%d\n",
		       naive ? "naive-90%" : "sequential",
		       seq_spend_name(spend), alpha, first, max, sim.effect,
		       sim.boot_sd, sim.cv, sim.samples, fl, sim.seed,
		       sim.runs);
		printf("worse=%d better=%d same=%d inconclusive=%d median_boots=%g mean_boots=%.2f\n",
		       o.worse, o.better, o.same, o.inconclusive,
		       o.median_boots, o.mean_boots);
	} else {
		return bad("subcommand", what);
	}
	free(v);
	return 0;
}
