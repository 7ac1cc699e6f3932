// SPDX-License-Identifier: GPL-2.0
/*
 * Absent variants: RUN/raw/<kernel>/<boot>/<workload>.absent, one line
 * "variant<TAB>point<TAB>reason" per point the kernel could not run
 * (guest/run.sh). Every line is checked, as the CSVs are: a bad one is
 * an error naming file:line, so a corrupt file cannot hide a point.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "absent.h"
#include "util.h"

#define ABSENT_EXT ".absent"
#define NO_REASON "no reason recorded"

static int is_absent_name(const char *name)
{
	size_t l = strlen(name), e = strlen(ABSENT_EXT);

	return name[0] != '.' && l > e && !strcmp(name + l - e, ABSENT_EXT);
}

static int bad(const char *file, size_t line, const char *what)
{
	fprintf(stderr, "kbstat: error: %s:%zu: %s\n", file, line, what);
	return -1;
}

int absent_load_file(struct absent *ab, FILE *fp, const char *file,
		     const char *stem, size_t kern, size_t boot)
{
	char *buf = NULL, msg[300];
	size_t cap = 0, line = 0, first = ab->n, i;
	ssize_t len;
	int ret = 0;

	while ((len = getline(&buf, &cap, fp)) >= 0) {
		char *f[3], *p;
		size_t nf;
		struct absent_entry *e;

		line++;
		if (strlen(buf) != (size_t)len) {
			ret = bad(file, line, "NUL byte inside the line (a corrupt or binary file)");
			break;
		}
		if (len && buf[len - 1] == '\n')
			buf[--len] = 0;
		if (!len) {
			ret = bad(file, line, "empty line");
			break;
		}
		for (nf = 1, p = buf; *p; p++)
			nf += *p == '\t';
		if (nf != 3) {
			snprintf(msg, sizeof(msg),
				 "%zu fields, expected 3 (variant<TAB>point<TAB>reason)",
				 nf);
			ret = bad(file, line, msg);
			break;
		}
		f[0] = buf;
		f[1] = strchr(f[0], '\t');
		*f[1]++ = 0;
		f[2] = strchr(f[1], '\t');
		*f[2]++ = 0;
		if (strpbrk(f[0], ",\r") || strpbrk(f[1], ",\r")) {
			/* a CSV sample could never carry it: not a point of the run */
			ret = bad(file, line, "a comma or carriage return in the variant or point");
			break;
		}
		if (!*f[1]) {
			ret = bad(file, line, "empty point");
			break;
		}
		/* the guest joins the bench's last stderr lines with blanks */
		p = f[2] + strlen(f[2]);
		while (p > f[2] && (p[-1] == ' ' || p[-1] == '\r'))
			*--p = 0;
		for (i = first; i < ab->n; i++) {
			if (!strcmp(ab->v[i].variant, f[0]) &&
			    !strcmp(ab->v[i].point, f[1])) {
				snprintf(msg, sizeof(msg),
					 "variant '%.40s' point '%.80s' listed again (first at %.120s)",
					 f[0], f[1], ab->v[i].where);
				ret = bad(file, line, msg);
				goto out;
			}
		}
		ab->v = xrealloc(ab->v, (ab->n + 1) * sizeof(*ab->v));
		e = &ab->v[ab->n++];
		e->workload = xstrdup(stem);
		e->variant = xstrdup(f[0]);
		e->point = xstrdup(f[1]);
		e->reason = xstrdup(*f[2] ? f[2] : NO_REASON);
		e->where = xmalloc(strlen(file) + 24);
		sprintf(e->where, "%s:%zu", file, line);
		e->kern = kern;
		e->boot = boot;
	}
	if (!ret && !line)
		ret = bad(file, 1, "empty file (an .absent file lists at least one point)");
out:
	free(buf);
	return ret;
}

int absent_in_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = is_absent_name(e->d_name);
	closedir(d);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.absent files of one boot directory, sorted, read in that order. */
static int load_dir(struct absent *ab, const char *dir, size_t kern,
		    size_t boot)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "kbstat: error: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (!is_absent_name(e->d_name))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		char *file = xmalloc(strlen(dir) + strlen(names[i]) + 2);
		struct stat st;
		FILE *fp;

		sprintf(file, "%s/%s", dir, names[i]);
		names[i][strlen(names[i]) - strlen(ABSENT_EXT)] = 0;
		if (!ret && (stat(file, &st) || !S_ISREG(st.st_mode))) {
			fprintf(stderr, "kbstat: error: %s: not a regular file\n", file);
			ret = -1;
		}
		if (!ret) {
			fp = fopen(file, "r");
			if (!fp) {
				fprintf(stderr, "kbstat: error: %s: %s\n", file,
					strerror(errno));
				ret = -1;
			} else {
				ret = absent_load_file(ab, fp, file, names[i], kern, boot);
				fclose(fp);
			}
		}
		free(file);
		free(names[i]);
	}
	free(names);
	return ret;
}

int absent_load(const char *run, const struct raw *raw, struct absent *ab)
{
	size_t b;

	memset(ab, 0, sizeof(*ab));
	for (b = 0; b < raw->nboots; b++) {
		char *dir = xmalloc(strlen(run) + strlen(raw->boots[b]) + 8);
		int ret;

		sprintf(dir, "%s/raw/%s", run, raw->boots[b]);
		ret = load_dir(ab, dir, raw->boot_kernel[b], b);
		free(dir);
		if (ret) {
			absent_free(ab);
			return -1;
		}
	}
	return 0;
}

const struct absent_entry *absent_find(const struct absent *ab, size_t kern,
				       const char *workload,
				       const char *variant, const char *point)
{
	size_t i;

	for (i = 0; ab && i < ab->n; i++) {
		const struct absent_entry *e = &ab->v[i];

		if (e->kern == kern && !strcmp(e->workload, workload) &&
		    (!variant || !strcmp(e->variant, variant)) &&
		    (!point || !strcmp(e->point, point)))
			return e;
	}
	return NULL;
}

void absent_free(struct absent *ab)
{
	size_t i;

	for (i = 0; i < ab->n; i++) {
		free(ab->v[i].workload);
		free(ab->v[i].variant);
		free(ab->v[i].point);
		free(ab->v[i].reason);
		free(ab->v[i].where);
	}
	free(ab->v);
	memset(ab, 0, sizeof(*ab));
}
