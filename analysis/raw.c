// SPDX-License-Identifier: GPL-2.0
/*
 * Raw sample loader: RUN/raw/<kernel>/<boot>/<workload>.csv.
 * Every line is checked; a bad one is an error naming file:line, never
 * skipped, so a truncated or mixed-up result cannot pass as data.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "absent.h"
#include "raw.h"
#include "util.h"

#define CSV_HEADER "workload,variant,point,metric,unit,better,clock,rep,value"
#define NFIELDS 9

/* a/b, allocated: paths are not length-capped. */
static char *path_join(const char *a, const char *b)
{
	char *p = xmalloc(strlen(a) + strlen(b) + 2);

	sprintf(p, "%s/%s", a, b);
	return p;
}

static const char *const better_names[] = {
	[BETTER_HIGHER] = "higher",
	[BETTER_LOWER] = "lower",
	[BETTER_NONE] = "none",
};

const char *better_name(enum better b)
{
	return better_names[b];
}

int better_parse(const char *s)
{
	int i;

	for (i = 0; i <= BETTER_NONE; i++)
		if (!strcmp(s, better_names[i]))
			return i;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of dir; want_dir selects directories or *.csv files. */
static char **list_dir(const char *dir, int want_dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL, *path;
	size_t cap = 0;
	struct stat st;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		path = path_join(dir, e->d_name);
		if (stat(path, &st)) {
			free(path);
			continue;
		}
		free(path);
		if (want_dir ? !S_ISDIR(st.st_mode) :
			       !S_ISREG(st.st_mode) || l < 5 ||
				       strcmp(e->d_name + l - 4, ".csv"))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static uint64_t key_hash(char **f)
{
	uint64_t h = 0;
	int i;

	for (i = 0; i < 4; i++)
		h = hash_str(h, f[i]);
	return h;
}

/* Open-addressed table of key indices (+1; 0 is empty), grown at 1/2. */
static void key_table_put(struct raw *raw, uint64_t h, size_t k)
{
	size_t i = h & (raw->ktab_size - 1);

	while (raw->ktab[i])
		i = (i + 1) & (raw->ktab_size - 1);
	raw->ktab[i] = k + 1;
}

static void key_table_grow(struct raw *raw)
{
	size_t k;

	raw->ktab_size = raw->ktab_size ? 2 * raw->ktab_size : 64;
	free(raw->ktab);
	raw->ktab = calloc(raw->ktab_size, sizeof(*raw->ktab));
	if (!raw->ktab) {
		fprintf(stderr, "kbstat: out of memory\n");
		exit(2);
	}
	for (k = 0; k < raw->nkeys; k++) {
		struct key *kk = &raw->keys[k];
		char *f[4] = { kk->workload, kk->variant, kk->point, kk->metric };

		key_table_put(raw, key_hash(f), k);
	}
}

static size_t find_key(struct raw *raw, char **f, const char *where)
{
	uint64_t h = key_hash(f);
	size_t i;

	if (2 * (raw->nkeys + 1) > raw->ktab_size)
		key_table_grow(raw);
	for (i = h & (raw->ktab_size - 1); raw->ktab[i];
	     i = (i + 1) & (raw->ktab_size - 1)) {
		struct key *kk = &raw->keys[raw->ktab[i] - 1];

		if (!strcmp(kk->workload, f[0]) && !strcmp(kk->variant, f[1]) &&
		    !strcmp(kk->point, f[2]) && !strcmp(kk->metric, f[3]))
			return raw->ktab[i] - 1;
	}
	if (!(raw->nkeys & (raw->nkeys - 1)))
		raw->keys = xrealloc(raw->keys,
				     (raw->nkeys ? 2 * raw->nkeys : 16) *
					     sizeof(*raw->keys));
	raw->keys[raw->nkeys] = (struct key){
		.workload = xstrdup(f[0]), .variant = xstrdup(f[1]),
		.point = xstrdup(f[2]), .metric = xstrdup(f[3]),
		.unit = xstrdup(f[4]), .clock = xstrdup(f[6]),
		.better = (enum better)better_parse(f[5]),
		.where = xstrdup(where),
	};
	raw->ktab[i] = raw->nkeys + 1;
	return raw->nkeys++;
}

/*
 * A plain decimal number: [-+]digits[.digits][e[-+]digits]. strtod
 * alone also takes hex, inf/nan and leading blanks, none of which a
 * bench writes: such a value means the file is not what it claims.
 */
static int plain_number(const char *s, int integer)
{
	const char *p = s;
	size_t digits = 0;

	if (*p == '-' || *p == '+')
		p++;
	while (*p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (!integer && *p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (!integer && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

static int bad(const char *file, size_t line, const char *what)
{
	fprintf(stderr, "kbstat: error: %s:%zu: %s\n", file, line, what);
	return -1;
}

int raw_load_csv(struct raw *raw, FILE *fp, const char *file,
		 const char *stem, size_t kern, size_t boot)
{
	char *buf = NULL, *f[NFIELDS + 1], *end, *where;
	size_t cap = 0, line = 0, rows = 0;
	ssize_t len;
	int ret = 0;

	while ((len = getline(&buf, &cap, fp)) >= 0) {
		size_t nf = 0, k;
		char *p = buf, msg[200];
		struct key *kk;
		double v;
		long rep;

		line++;
		if (strlen(buf) != (size_t)len) {
			ret = bad(file, line, "NUL byte inside the line (a corrupt or binary file)");
			break;
		}
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		if (line == 1) {
			if (strcmp(buf, CSV_HEADER)) {
				ret = bad(file, line, "header is not '" CSV_HEADER "'");
				break;
			}
			continue;
		}
		if (!len) {
			ret = bad(file, line, "empty line");
			break;
		}
		for (nf = 1; *p; p++)
			nf += *p == ',';
		if (nf == NFIELDS) {
			p = buf;
			f[0] = p;
			for (k = 1; *p; p++) {
				if (*p == ',') {
					*p = 0;
					f[k++] = p + 1;
				}
			}
		}
		if (nf != NFIELDS) {
			snprintf(msg, sizeof(msg),
				 "%zu fields, expected %d (%s)", nf, NFIELDS,
				 CSV_HEADER);
			ret = bad(file, line, msg);
			break;
		}
		if (strcmp(f[0], stem)) {
			snprintf(msg, sizeof(msg),
				 "workload '%.60s' in a file named for '%.60s'",
				 f[0], stem);
			ret = bad(file, line, msg);
			break;
		}
		if (!*f[3]) {
			ret = bad(file, line, "empty metric");
			break;
		}
		if (better_parse(f[5]) < 0) {
			snprintf(msg, sizeof(msg),
				 "better is '%.60s', expected higher, lower or none",
				 f[5]);
			ret = bad(file, line, msg);
			break;
		}
		/* model: the kbcache plugin's rows (model/join.sh) */
		if (strcmp(f[6], "icount") && strcmp(f[6], "wall") &&
		    strcmp(f[6], "model")) {
			snprintf(msg, sizeof(msg),
				 "clock is '%.60s', expected icount, wall or model",
				 f[6]);
			ret = bad(file, line, msg);
			break;
		}
		errno = 0;
		rep = strtol(f[7], &end, 10);
		if (!plain_number(f[7], 1) || *end || errno || rep < 0) {
			snprintf(msg, sizeof(msg),
				 "rep '%.60s' is not a non-negative integer", f[7]);
			ret = bad(file, line, msg);
			break;
		}
		errno = 0;
		v = strtod(f[8], &end);
		if (!plain_number(f[8], 0) || *end || errno || !isfinite(v)) {
			snprintf(msg, sizeof(msg),
				 "value '%.60s' is not a plain decimal number", f[8]);
			ret = bad(file, line, msg);
			break;
		}
		where = xmalloc(strlen(file) + 24);
		sprintf(where, "%s:%zu", file, line);
		k = find_key(raw, f, where);
		kk = &raw->keys[k];
		/* one metric has one unit, direction and clock everywhere */
		if (strcmp(kk->unit, f[4]) ||
		    kk->better != (enum better)better_parse(f[5])) {
			snprintf(msg, sizeof(msg),
				 "unit/better differ from %.150s", kk->where);
			ret = bad(file, line, msg);
			free(where);
			break;
		}
		if (strcmp(kk->clock, f[6]) && strcmp(kk->clock, "mixed")) {
			fprintf(stderr,
				"kbstat: warning: %s: clock %s, but %s has %s\n",
				where, f[6], kk->where, kk->clock);
			free(kk->clock);
			kk->clock = xstrdup("mixed");
		}
		free(where);
		if (!(raw->nsamples & (raw->nsamples - 1)))
			raw->samples = xrealloc(raw->samples,
						(raw->nsamples ? 2 * raw->nsamples : 64) *
							sizeof(*raw->samples));
		raw->samples[raw->nsamples++] =
			(struct sample){ k, kern, boot, v };
		rows++;
	}
	if (!ret && line == 0)
		ret = bad(file, 1, "empty file (no header)");
	/* a header alone: the bench died after opening its output */
	if (!ret && !rows)
		ret = bad(file, 1, "header only, no samples (the bench wrote nothing: see the boot's run.log)");
	free(buf);
	return ret;
}

static int load_csv(struct raw *raw, const char *file, const char *stem,
		    size_t kern, size_t boot)
{
	FILE *fp = fopen(file, "r");
	int ret;

	if (!fp) {
		fprintf(stderr, "kbstat: error: %s: %s\n", file, strerror(errno));
		return -1;
	}
	ret = raw_load_csv(raw, fp, file, stem, kern, boot);
	fclose(fp);
	return ret;
}

/* Samples live in raw/<kernel>/<boot>/: a CSV anywhere above is misplaced. */
static int stray_csv(const char *dir)
{
	size_t n, i;
	char **f = list_dir(dir, 0, &n);

	if (!n)
		return 0;
	fprintf(stderr,
		"kbstat: error: %s/%s: CSV outside a boot directory (samples belong in raw/<kernel>/<boot>/)\n",
		dir, f[0]);
	for (i = 0; i < n; i++)
		free(f[i]);
	free(f);
	return -1;
}

/* Sample indices grouped by key, in load order (kernel, then boot). */
static void index_keys(struct raw *raw)
{
	size_t *fill, i;

	raw->key_start = calloc(raw->nkeys + 1, sizeof(*raw->key_start));
	raw->order = xmalloc((raw->nsamples + 1) * sizeof(*raw->order));
	fill = xmalloc((raw->nkeys + 1) * sizeof(*fill));
	if (!raw->key_start) {
		fprintf(stderr, "kbstat: out of memory\n");
		exit(2);
	}
	for (i = 0; i < raw->nsamples; i++)
		raw->key_start[raw->samples[i].key + 1]++;
	for (i = 0; i < raw->nkeys; i++)
		raw->key_start[i + 1] += raw->key_start[i];
	memcpy(fill, raw->key_start, raw->nkeys * sizeof(*fill));
	for (i = 0; i < raw->nsamples; i++)
		raw->order[fill[raw->samples[i].key]++] = i;
	free(fill);
}

int raw_load(const char *run, struct raw *raw)
{
	char *dir = path_join(run, "raw");
	size_t nk, kern;
	char **kernels;

	memset(raw, 0, sizeof(*raw));
	kernels = list_dir(dir, 1, &nk);
	if (!nk) {
		fprintf(stderr,
			"kbstat: error: %s: no raw/<kernel>/<boot>/*.csv (is this a run directory?)\n",
			dir);
		return -1;
	}
	if (stray_csv(dir))
		return -1;
	raw->kernels = kernels;
	raw->nkernels = nk;
	for (kern = 0; kern < nk; kern++) {
		char *sub = path_join(dir, kernels[kern]), **boots;
		size_t nb, b;

		if (stray_csv(sub))
			return -1;
		boots = list_dir(sub, 1, &nb);
		for (b = 0; b < nb; b++) {
			char **files, *bdir;
			size_t nf, i;

			raw->boots = xrealloc(raw->boots, (raw->nboots + 1) *
							      sizeof(*raw->boots));
			raw->boot_kernel = xrealloc(raw->boot_kernel,
						    (raw->nboots + 1) *
							    sizeof(*raw->boot_kernel));
			raw->boots[raw->nboots] = path_join(kernels[kern], boots[b]);
			raw->boot_kernel[raw->nboots] = kern;
			bdir = path_join(sub, boots[b]);
			files = list_dir(bdir, 0, &nf);
			/* a boot whose every point was absent has no CSV */
			if (!nf && !absent_in_dir(bdir)) {
				fprintf(stderr,
					"kbstat: error: %s: boot directory with no *.csv or *.absent (remove it, or re-run the boot with RESUME=%s)\n",
					bdir, run);
				return -1;
			}
			for (i = 0; i < nf; i++) {
				char *file = path_join(bdir, files[i]);

				files[i][strlen(files[i]) - 4] = 0;
				if (load_csv(raw, file, files[i], kern, raw->nboots))
					return -1;
				free(file);
				free(files[i]);
			}
			free(files);
			free(bdir);
			free(boots[b]);
			raw->nboots++;
		}
		free(boots);
		free(sub);
	}
	free(dir);
	index_keys(raw);
	return 0;
}

void raw_free(struct raw *raw)
{
	size_t i;

	for (i = 0; i < raw->nkeys; i++) {
		struct key *k = &raw->keys[i];

		free(k->workload);
		free(k->variant);
		free(k->point);
		free(k->metric);
		free(k->unit);
		free(k->clock);
		free((char *)k->where);
	}
	for (i = 0; i < raw->nkernels; i++)
		free(raw->kernels[i]);
	for (i = 0; i < raw->nboots; i++)
		free(raw->boots[i]);
	free(raw->keys);
	free(raw->samples);
	free(raw->kernels);
	free(raw->boots);
	free(raw->boot_kernel);
	free(raw->ktab);
	free(raw->order);
	free(raw->key_start);
	memset(raw, 0, sizeof(*raw));
}

long raw_kernel(const struct raw *raw, const char *label)
{
	size_t i;

	for (i = 0; i < raw->nkernels; i++)
		if (!strcmp(raw->kernels[i], label))
			return (long)i;
	return -1;
}

size_t raw_boot_set(const struct raw *raw, size_t k, size_t kern,
		    struct boot_set *bs)
{
	size_t i, b, last = (size_t)-1, cap = 0;

	memset(bs, 0, sizeof(*bs));
	/* samples of a key are in boot order: a new boot starts a level */
	for (i = raw->key_start[k]; i < raw->key_start[k + 1]; i++) {
		const struct sample *s = &raw->samples[raw->order[i]];

		if (s->kernel != kern)
			continue;
		if (s->boot != last) {
			last = s->boot;
			if (bs->nboots == cap) {
				cap = cap ? 2 * cap : 8;
				bs->len = xrealloc(bs->len, cap * sizeof(*bs->len));
				bs->val = xrealloc(bs->val, cap * sizeof(*bs->val));
				bs->cap = xrealloc(bs->cap, cap * sizeof(*bs->cap));
			}
			bs->len[bs->nboots] = 0;
			bs->cap[bs->nboots] = 0;
			bs->val[bs->nboots++] = NULL;
		}
		b = bs->nboots - 1;
		if (bs->len[b] == bs->cap[b]) {
			bs->cap[b] = bs->cap[b] ? 2 * bs->cap[b] : 16;
			bs->val[b] = xrealloc(bs->val[b], bs->cap[b] * sizeof(double));
		}
		bs->val[b][bs->len[b]++] = s->value;
		bs->n++;
	}
	return bs->n;
}

void boot_set_free(struct boot_set *bs)
{
	size_t b;

	for (b = 0; b < bs->nboots; b++)
		free(bs->val[b]);
	free(bs->val);
	free(bs->len);
	free(bs->cap);
	memset(bs, 0, sizeof(*bs));
}
