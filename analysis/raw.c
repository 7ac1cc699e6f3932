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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kbstat.h"

#define CSV_HEADER "workload,variant,point,metric,unit,better,clock,rep,value"
#define NFIELDS 9

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "kbstat: out of memory\n");
		exit(2);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "kbstat: out of memory\n");
		exit(2);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* a/b, allocated: paths are not length-capped. */
static char *path_join(const char *a, const char *b)
{
	char *p = xmalloc(strlen(a) + strlen(b) + 2);

	sprintf(p, "%s/%s", a, b);
	return p;
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

static size_t find_key(struct raw *raw, char **f, const char *where)
{
	static size_t last;
	size_t k;

	/* rows of one key usually come together: try the last hit first */
	for (k = 0; k < raw->nkeys; k++) {
		size_t i = (last + k) % raw->nkeys;
		struct key *kk = &raw->keys[i];

		if (!strcmp(kk->workload, f[0]) && !strcmp(kk->variant, f[1]) &&
		    !strcmp(kk->point, f[2]) && !strcmp(kk->metric, f[3])) {
			last = i;
			return i;
		}
	}
	if (!(raw->nkeys & (raw->nkeys - 1)))
		raw->keys = xrealloc(raw->keys,
				     (raw->nkeys ? 2 * raw->nkeys : 16) *
					     sizeof(*raw->keys));
	raw->keys[raw->nkeys] = (struct key){
		.workload = xstrdup(f[0]), .variant = xstrdup(f[1]),
		.point = xstrdup(f[2]), .metric = xstrdup(f[3]),
		.unit = xstrdup(f[4]), .clock = xstrdup(f[6]),
		.better = strcmp(f[5], "higher") ? BETTER_LOWER : BETTER_HIGHER,
		.where = xstrdup(where),
	};
	last = raw->nkeys;
	return raw->nkeys++;
}

static int bad(const char *file, size_t line, const char *what)
{
	fprintf(stderr, "kbstat: error: %s:%zu: %s\n", file, line, what);
	return -1;
}

static int load_csv(struct raw *raw, const char *file, const char *stem,
		    size_t kern, size_t boot)
{
	FILE *fp = fopen(file, "r");
	char *buf = NULL, *f[NFIELDS + 1], *end, *where;
	size_t cap = 0, line = 0, rows = 0;
	ssize_t len;
	int ret = 0;

	if (!fp) {
		fprintf(stderr, "kbstat: error: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while ((len = getline(&buf, &cap, fp)) >= 0) {
		size_t nf = 0, k;
		char *p = buf, msg[200];
		struct key *kk;
		double v;
		long rep;

		line++;
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
		if (strcmp(f[5], "higher") && strcmp(f[5], "lower")) {
			snprintf(msg, sizeof(msg),
				 "better is '%.60s', expected higher or lower",
				 f[5]);
			ret = bad(file, line, msg);
			break;
		}
		if (strcmp(f[6], "icount") && strcmp(f[6], "wall")) {
			snprintf(msg, sizeof(msg),
				 "clock is '%.60s', expected icount or wall",
				 f[6]);
			ret = bad(file, line, msg);
			break;
		}
		errno = 0;
		rep = strtol(f[7], &end, 10);
		if (!*f[7] || *end || errno || rep < 0) {
			snprintf(msg, sizeof(msg),
				 "rep '%.60s' is not a non-negative integer", f[7]);
			ret = bad(file, line, msg);
			break;
		}
		errno = 0;
		v = strtod(f[8], &end);
		if (!*f[8] || *end || errno || !isfinite(v)) {
			snprintf(msg, sizeof(msg),
				 "value '%.60s' is not a finite number", f[8]);
			ret = bad(file, line, msg);
			break;
		}
		where = xmalloc(strlen(file) + 24);
		sprintf(where, "%s:%zu", file, line);
		k = find_key(raw, f, where);
		kk = &raw->keys[k];
		/* one metric has one unit, direction and clock everywhere */
		if (strcmp(kk->unit, f[4]) ||
		    kk->better != (strcmp(f[5], "higher") ? BETTER_LOWER :
							     BETTER_HIGHER)) {
			snprintf(msg, sizeof(msg),
				 "unit/better differ from %.150s", kk->where);
			ret = bad(file, line, msg);
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
	if (!ret && !rows)
		fprintf(stderr, "kbstat: warning: %s: no samples\n", file);
	free(buf);
	fclose(fp);
	return ret;
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
	raw->kernels = kernels;
	raw->nkernels = nk;
	for (kern = 0; kern < nk; kern++) {
		char *sub = path_join(dir, kernels[kern]), **boots;
		size_t nb, b;

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
	return 0;
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
	size_t *slot, i, b;

	memset(bs, 0, sizeof(*bs));
	slot = xmalloc(raw->nboots * sizeof(*slot));
	/* boots with no sample of this key are not a level for it */
	for (b = 0; b < raw->nboots; b++)
		slot[b] = (size_t)-1;
	for (i = 0; i < raw->nsamples; i++) {
		const struct sample *s = &raw->samples[i];

		if (s->key != k || s->kernel != kern)
			continue;
		if (slot[s->boot] == (size_t)-1) {
			slot[s->boot] = bs->nboots++;
			bs->len = xrealloc(bs->len, bs->nboots * sizeof(*bs->len));
			bs->val = xrealloc(bs->val, bs->nboots * sizeof(*bs->val));
			bs->len[bs->nboots - 1] = 0;
			bs->val[bs->nboots - 1] = NULL;
		}
		b = slot[s->boot];
		bs->val[b] = xrealloc(bs->val[b], (bs->len[b] + 1) * sizeof(double));
		bs->val[b][bs->len[b]++] = s->value;
		bs->n++;
	}
	free(slot);
	return bs->n;
}

void boot_set_free(struct boot_set *bs)
{
	size_t b;

	for (b = 0; b < bs->nboots; b++)
		free(bs->val[b]);
	free(bs->val);
	free(bs->len);
	memset(bs, 0, sizeof(*bs));
}
