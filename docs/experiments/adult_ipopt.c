/*
 * adult_ipopt: examples/adult.qrc solved by IPOPT (exact Hessian), the
 * reference optimum of the "Adult replicated 30 times" comparison of
 * docs/performance.md (issue 18). Not part of the build or of CI; it needs
 * IPOPT's C interface (Debian: apt-get install coinor-libipopt-dev).
 *
 *   cc -O2 -o /tmp/adult_ipopt docs/experiments/adult_ipopt.c -I/usr/include/coin -lipopt -lm
 *   /tmp/adult_ipopt ../shared/data/adult.csv [lambda delta]
 *   /tmp/adult_ipopt -out x.json /tmp/adult30.csv      # also write the optimum as a point file (qrc eval --at x.json)
 *   /tmp/adult_ipopt -eval result.json ../shared/data/adult.csv   # only evaluate the point of a qrc result or point file
 *
 * The data are read as csv(FILE, label = "income", drop = ["male", "white"])
 * reads them (data/csv.go): a header, every cell a number; y is the income
 * column (-1 or 1), the group column is male, and the features X_i are all
 * the other columns except male and white, in file order (56 for adult.csv;
 * no intercept). The model, with x in R^d,
 *
 *   minimize   (1/N) sum_i logistic(-y_i x.X_i),   logistic(z) = log(1 + e^z)
 *   subject to rate(0) - rate(1) <= delta,  rate(1) - rate(0) <= delta,
 *              ||x||^2 <= lambda^2                  (x in ball(lambda)),
 *   rate(g) = mean over the rows with male == g of sigmoid(x.X_i),
 *
 * from x = 0 (qrc's start: 0 projected onto the ball), with lambda = 10 and
 * delta = 0.05 as in examples/adult.qrc. logistic and sigmoid are computed
 * from e^-|z|, without overflow. The Hessian of the Lagrangian is exact:
 * sum_i w_i X_i X_i^T with one weight per row, plus 2 mu I for the ball.
 *
 * It prints, per iteration, the wall and CPU seconds since the solve began,
 * the data passes so far (evaluations of the values and gradients of all
 * three data functions on all rows; a Hessian is counted apart: it skips
 * the zeros of the one-hot columns and costs about as much CPU as a pass,
 * 0.12 s against 0.13 s on /tmp/adult30.csv), the objective, IPOPT's inf_pr
 * and `viol`, the largest violation of the model's constraints recomputed
 * here at the iterate: max(0, rate(0) - rate(1) - delta, rate(1) - rate(0)
 * - delta, ||x|| - lambda). Read viol, not inf_pr: IPOPT 3.11 hands its
 * callback ||d(x) - s||, d the constraints and s their slacks, which after
 * a full Newton step differs from 0 by the curvature of ||x||^2 even at a
 * feasible iterate (4.11 at iteration 2 on adult.csv, where viol is 0); its
 * own log (print_level 5, e.g. from an ipopt.opt file in the working
 * directory) prints 0 there. Then the loading time, the solve time and the
 * final point's objective and violation recomputed here (bound_relax_factor
 * lets IPOPT end a few 1e-9 outside).
 *
 * On adult.csv and on /tmp/adult30.csv (docs/performance.md) it ends after
 * 19 iterations at 0.3664405992 with viol 3.85e-9, ||x|| = 9.9996: the ball
 * is active with a multiplier of about 3e-7 (tol 1e-12 gives 0.3664405937
 * at ||x|| = 10; lambda = 100 only 0.3664212695). The two programs
 * compute the same functions: qrc eval --at its -out point, and -eval of
 * qrc's results, agree with qrc in the objective and both constraints to
 * 3e-14 on both files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "IpStdCInterface.h"

static int D;                 /* features */
static long N, NG[2];         /* rows; rows per group */
static double *X;             /* N x D */
static double *Y;             /* labels */
static signed char *G;        /* group: 0, 1, or -1 (male neither 0 nor 1: in no group) */
static double LAMBDA = 10, DELTA = 0.05;

/* per-evaluation cache at the point cx */
static double *cx;
static double *Z;                     /* x . X_i */
static double fval, rate[2];          /* objective, rates */
static double *gf, *gr0, *gr1;        /* their gradients */

static double wall(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double cpu(void) {
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double t0w, t0c;
static long passes, hpasses;

/* sigmoid(z) = 1/(1+e^-z) and logistic(z) = log(1+e^z), from e^-|z| */
static inline double sigmoid(double z) {
	double e = exp(-fabs(z));
	return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}
static inline double logistic(double z) {
	return fmax(z, 0) + log1p(exp(-fabs(z)));
}

static void compute(const double *x) {
	if (cx && memcmp(cx, x, sizeof(double) * D) == 0)
		return;
	if (!cx)
		cx = malloc(sizeof(double) * D);
	memcpy(cx, x, sizeof(double) * D);
	passes++;
	memset(gf, 0, sizeof(double) * D);
	memset(gr0, 0, sizeof(double) * D);
	memset(gr1, 0, sizeof(double) * D);
	double f = 0, r[2] = {0, 0};
	for (long i = 0; i < N; i++) {
		const double *xi = X + i * D;
		double z = 0;
		for (int j = 0; j < D; j++)
			z += x[j] * xi[j];
		Z[i] = z;
		/* logistic(-y z): derivative in z is -y sigmoid(-y z) */
		double u = -Y[i] * z;
		f += logistic(u);
		double c = -Y[i] * sigmoid(u);
		for (int j = 0; j < D; j++)
			gf[j] += c * xi[j];
		if (G[i] >= 0) {
			double s = sigmoid(z);
			r[G[i]] += s;
			double *g = G[i] ? gr1 : gr0;
			double ds = s * (1 - s);
			for (int j = 0; j < D; j++)
				g[j] += ds * xi[j];
		}
	}
	fval = f / N;
	rate[0] = r[0] / NG[0], rate[1] = r[1] / NG[1];
	for (int j = 0; j < D; j++) {
		gf[j] /= N;
		gr0[j] /= NG[0];
		gr1[j] /= NG[1];
	}
}

static double norm2(const double *x) {
	double s = 0;
	for (int j = 0; j < D; j++)
		s += x[j] * x[j];
	return s;
}
/* the model's largest violation at the cached point */
static double violation(void) {
	double v = 0;
	v = fmax(v, rate[0] - rate[1] - DELTA);
	v = fmax(v, rate[1] - rate[0] - DELTA);
	v = fmax(v, sqrt(norm2(cx)) - LAMBDA);
	return v;
}

static Bool eval_f(Index n, Number *x, Bool new_x, Number *f, UserDataPtr u) {
	compute(x);
	*f = fval;
	return TRUE;
}
static Bool eval_grad_f(Index n, Number *x, Bool new_x, Number *g, UserDataPtr u) {
	compute(x);
	memcpy(g, gf, sizeof(double) * D);
	return TRUE;
}
/* constraints: 0 rate(0) - rate(1), 1 rate(1) - rate(0), 2 ||x||^2 */
static Bool eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr u) {
	compute(x);
	g[0] = rate[0] - rate[1];
	g[1] = rate[1] - rate[0];
	g[2] = norm2(x);
	return TRUE;
}
static Bool eval_jac_g(Index n, Number *x, Bool new_x, Index m, Index nele, Index *iRow, Index *jCol, Number *v, UserDataPtr u) {
	int e = 0;
	if (!v) {
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < D; j++)
				iRow[e] = k, jCol[e] = j, e++;
		return TRUE;
	}
	compute(x);
	for (int j = 0; j < D; j++)
		v[e++] = gr0[j] - gr1[j];
	for (int j = 0; j < D; j++)
		v[e++] = gr1[j] - gr0[j];
	for (int j = 0; j < D; j++)
		v[e++] = 2 * x[j];
	return TRUE;
}
/*
 * dense lower triangle of the D x D Hessian of
 * of * f + lam[0] (rate0 - rate1) + lam[1] (rate1 - rate0) + lam[2] ||x||^2:
 * the row weights are of s(1-s)/N for f (s = sigmoid(-y z), y^2 = 1) and
 * (lam[0] - lam[1]) (+1/N0 or -1/N1) sigma(1-sigma)(1-2 sigma) for the rates.
 */
static Bool eval_h(Index n, Number *x, Bool new_x, Number of, Index m, Number *lam, Bool new_lam, Index nele, Index *iRow, Index *jCol, Number *v, UserDataPtr u) {
	if (!v) {
		int e = 0;
		for (int a = 0; a < n; a++)
			for (int b = 0; b <= a; b++)
				iRow[e] = a, jCol[e] = b, e++;
		return TRUE;
	}
	compute(x);
	hpasses++;
	double *H = calloc((size_t)D * D, sizeof(double));
	double dl = lam[0] - lam[1];
	double wg[2] = {dl / NG[0], -dl / NG[1]};
	for (long i = 0; i < N; i++) {
		const double *xi = X + i * D;
		double z = Z[i];
		double s = sigmoid(-Y[i] * z);
		double w = of * s * (1 - s) * Y[i] * Y[i] / N;
		if (G[i] >= 0) {
			double t = sigmoid(z);
			w += wg[G[i]] * t * (1 - t) * (1 - 2 * t);
		}
		if (w == 0)
			continue;
		for (int a = 0; a < D; a++) {
			double wa = w * xi[a];
			if (wa == 0)
				continue; /* most one-hot features are 0 */
			double *h = H + a * D;
			for (int b = 0; b <= a; b++)
				h[b] += wa * xi[b];
		}
	}
	for (int j = 0; j < D; j++)
		H[j * D + j] += 2 * lam[2];
	int e = 0;
	for (int a = 0; a < D; a++)
		for (int b = 0; b <= a; b++)
			v[e++] = H[a * D + b];
	free(H);
	return TRUE;
}

static Bool progress(Index mode, Index iter, Number obj, Number inf_pr, Number inf_du, Number mu, Number dn, Number reg, Number ad, Number ap, Index ls, UserDataPtr u) {
	/* the last evaluation (of the Hessian, or of the trial point that was
	 * accepted) is at the current iterate; the check says so */
	fprintf(stderr, "iter %3d wall %8.3f cpu %8.3f passes %3ld hessians %3ld objective %.10g inf_pr %.3g viol %.3g%s\n", (int)iter, wall() - t0w, cpu() - t0c, passes, hpasses, obj, inf_pr, violation(), obj == fval ? "" : " (viol not at the iterate)");
	return TRUE;
}

/* one CSV record into fields (no quoting: every cell is a number) */
static int split(char *line, char **f, int max) {
	int k = 0;
	char *p = line;
	for (;;) {
		if (k == max)
			return -1;
		f[k++] = p;
		char *q = strchr(p, ',');
		if (!q)
			break;
		*q = 0;
		p = q + 1;
	}
	char *end = f[k - 1] + strlen(f[k - 1]);
	while (end > f[k - 1] && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = 0;
	return k;
}

static double number(const char *s, long line, int col) {
	char *q;
	double v = strtod(s, &q);
	while (*q == ' ' || *q == '\t')
		q++;
	if (q == s || *q) {
		fprintf(stderr, "line %ld, column %d: not a number: \"%s\"\n", line, col + 1, s);
		exit(1);
	}
	return v;
}

/* the variables of a qrc point file or result: the array after "x" in "variables" */
static double *readpoint(const char *path) {
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(size + 1);
	if (fread(s, 1, size, f) != (size_t)size) {
		perror(path);
		exit(1);
	}
	s[size] = 0;
	fclose(f);
	char *p = strstr(s, "\"variables\"");
	p = p ? strstr(p, "\"x\"") : NULL;
	p = p ? strchr(p, '[') : NULL;
	if (!p) {
		fprintf(stderr, "%s: no variables.x\n", path);
		exit(1);
	}
	double *x = malloc(sizeof(double) * D);
	p++;
	for (int j = 0; j < D; j++) {
		char *q;
		x[j] = strtod(p, &q);
		if (q == p) {
			fprintf(stderr, "%s: x has fewer than %d numbers\n", path, D);
			exit(1);
		}
		p = q;
		while (*p == ' ' || *p == '\n' || *p == ',')
			p++;
	}
	if (*p != ']') {
		fprintf(stderr, "%s: x has more than %d numbers\n", path, D);
		exit(1);
	}
	free(s);
	return x;
}

int main(int argc, char **argv) {
	const char *evalpath = NULL, *outpath = NULL;
	while (argc >= 3 && argv[1][0] == '-') {
		if (strcmp(argv[1], "-eval") == 0)
			evalpath = argv[2];
		else if (strcmp(argv[1], "-out") == 0)
			outpath = argv[2];
		else
			break;
		argc -= 2, argv += 2;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: adult_ipopt [-eval POINT.json] [-out X.json] FILE.csv [lambda delta]\n");
		return 2;
	}
	if (argc >= 4)
		LAMBDA = atof(argv[2]), DELTA = atof(argv[3]);
	double lw = wall(), lc = cpu();
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	static char line[1 << 16];
	enum { MAXCOL = 1024 };
	char *fld[MAXCOL];
	if (!fgets(line, sizeof line, f)) {
		fprintf(stderr, "%s: empty\n", argv[1]);
		return 1;
	}
	if ((unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB && (unsigned char)line[2] == 0xBF)
		memmove(line, line + 3, strlen(line + 3) + 1);
	int ncol = split(line, fld, MAXCOL);
	if (ncol < 0) {
		fprintf(stderr, "more than %d columns\n", MAXCOL);
		return 1;
	}
	int ylab = -1, gcol = -1, wcol = -1;
	for (int j = 0; j < ncol; j++) {
		/* names trimmed of spaces, as data/csv.go does */
		char *s = fld[j];
		while (*s == ' ')
			s++;
		char *e = s + strlen(s);
		while (e > s && e[-1] == ' ')
			*--e = 0;
		if (strcmp(s, "income") == 0)
			ylab = j;
		else if (strcmp(s, "male") == 0)
			gcol = j;
		else if (strcmp(s, "white") == 0)
			wcol = j;
	}
	if (ylab < 0 || gcol < 0 || wcol < 0) {
		fprintf(stderr, "%s: want columns income, male and white\n", argv[1]);
		return 1;
	}
	D = ncol - 3;
	int *feat = malloc(sizeof(int) * D), k = 0;
	for (int j = 0; j < ncol; j++)
		if (j != ylab && j != gcol && j != wcol)
			feat[k++] = j;
	long cap = 1 << 16, lineno = 1;
	X = malloc(sizeof(double) * cap * D);
	Y = malloc(sizeof(double) * cap);
	G = malloc(cap);
	N = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '\n' || (line[0] == '\r' && line[1] == '\n'))
			continue; /* empty lines are skipped */
		if (split(line, fld, MAXCOL) != ncol) {
			fprintf(stderr, "line %ld: want %d fields\n", lineno, ncol);
			return 1;
		}
		if (N == cap) {
			cap *= 2;
			X = realloc(X, sizeof(double) * cap * D);
			Y = realloc(Y, sizeof(double) * cap);
			G = realloc(G, cap);
		}
		double *xi = X + N * D;
		for (int j = 0; j < D; j++)
			xi[j] = number(fld[feat[j]], lineno, feat[j]);
		Y[N] = number(fld[ylab], lineno, ylab);
		double g = number(fld[gcol], lineno, gcol);
		G[N] = g == 0 ? 0 : g == 1 ? 1 : -1;
		if (G[N] >= 0)
			NG[G[N]]++;
		N++;
	}
	fclose(f);
	Z = malloc(sizeof(double) * N);
	gf = malloc(sizeof(double) * D);
	gr0 = malloc(sizeof(double) * D);
	gr1 = malloc(sizeof(double) * D);
	double loadw = wall() - lw, loadc = cpu() - lc;
	fprintf(stderr, "loaded %ld rows (%ld with male = 0, %ld with male = 1), %d features: wall %.3f s, cpu %.3f s\n", N, NG[0], NG[1], D, loadw, loadc);
	if (NG[0] == 0 || NG[1] == 0) {
		fprintf(stderr, "a group is empty\n");
		return 1;
	}

	if (evalpath) {
		double *x = readpoint(evalpath);
		compute(x);
		printf("objective %.17g rate0 %.17g rate1 %.17g parity_fm %.6g parity_mf %.6g norm %.10g max_violation %.3g\n", fval, rate[0], rate[1], rate[0] - rate[1] - DELTA, rate[1] - rate[0] - DELTA, sqrt(norm2(x)), violation());
		return 0;
	}

	int m = 3;
	double *xl = malloc(sizeof(double) * D), *xu = malloc(sizeof(double) * D);
	for (int j = 0; j < D; j++)
		xl[j] = -1e20, xu[j] = 1e20;
	double gl[3] = {-1e20, -1e20, -1e20}, gu[3] = {DELTA, DELTA, LAMBDA * LAMBDA};
	int nj = 3 * D, nh = D * (D + 1) / 2;
	IpoptProblem prob = CreateIpoptProblem(D, xl, xu, m, gl, gu, nj, nh, 0, eval_f, eval_g, eval_grad_f, eval_jac_g, eval_h);
	AddIpoptNumOption(prob, "tol", 1e-8);
	AddIpoptIntOption(prob, "print_level", 0);
	SetIntermediateCallback(prob, progress);
	double *x = calloc(D, sizeof(double)), obj, g[3];
	t0w = wall(), t0c = cpu();
	enum ApplicationReturnStatus st = IpoptSolve(prob, x, g, &obj, NULL, NULL, NULL, NULL);
	double sw = wall() - t0w, sc = cpu() - t0c;
	free(cx);
	cx = NULL; /* recompute at the final point */
	compute(x);
	printf("status %d objective %.10g rate0 %.10g rate1 %.10g norm %.10g max_violation %.3g solve_wall %.3f solve_cpu %.3f load_wall %.3f load_cpu %.3f passes %ld hessians %ld\n", st, fval, rate[0], rate[1], sqrt(norm2(x)), violation(), sw, sc, loadw, loadc, passes - 1, hpasses);
	if (outpath) {
		FILE *o = fopen(outpath, "w");
		if (!o) {
			perror(outpath);
			return 1;
		}
		fprintf(o, "{\"variables\": {\"x\": [");
		for (int j = 0; j < D; j++)
			fprintf(o, "%s%.17g", j ? ", " : "", x[j]);
		fprintf(o, "]}}\n");
		fclose(o);
	}
	FreeIpoptProblem(prob);
	return st == Solve_Succeeded || st == Solved_To_Acceptable_Level ? 0 : 1;
}
