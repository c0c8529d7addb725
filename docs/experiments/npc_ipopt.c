/*
 * npc_ipopt: examples/npc.qrc solved by IPOPT (exact Hessian), for the
 * large-data comparison of docs/performance.md (issue 18). Not part of the
 * build or of CI; it needs IPOPT's C interface (Debian:
 * apt-get install coinor-libipopt-dev).
 *
 *   cc -O2 -o /tmp/npc_ipopt docs/experiments/npc_ipopt.c -I/usr/include/coin -lipopt -lm
 *   /tmp/npc_ipopt /tmp/npc-1000000-16x10-s18.svm [lambda r]
 *
 * The model (K classes, d features, from the file): variables W[K][d],
 *
 *   loss(k) = mean over the rows i of class k of sum_{l != k} phi((W_k - W_l) . x_i),
 *   phi(z)  = 1 / (1 + exp(z)),
 *   minimize loss(1)  s.t.  loss(k) <= r (k = 2..K),  ||W_k||^2 <= lambda^2 (k = 1..K),
 *
 * from W = 0, with lambda = 0.1 and r = 4.5 as in examples/npc.qrc. The
 * Hessian of the Lagrangian is exact (phi'' x x^T summed per class pair).
 * It prints, per iteration, the wall and CPU seconds since the solve began,
 * the data passes so far (evaluations of the values and gradients on all
 * rows, and of the Hessian, which costs about as much again per row),
 * the objective, IPOPT's inf_pr and viol, the largest violation of the
 * model's constraints recomputed at the iterate (read viol: IPOPT 3.11's
 * inf_pr is not the constraints' violation and can be large at a feasible
 * iterate, as docs/experiments/adult_ipopt.c found; before viol was added
 * this program's log, and docs/performance.md, took inf_pr for it), then
 * the loading time, the solve time and the final point's objective and
 * violation recomputed here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "IpStdCInterface.h"

static int K, D;       /* classes, features */
static long N;         /* rows */
static double *X;      /* N x D, rows sorted by class */
static long *start;    /* start[k] .. start[k+1]-1: the rows of class k */
static double LAMBDA = 0.1, R = 4.5;

/* per-evaluation cache: phi, phi', phi'' at every (row, other class) */
static double *cx;     /* the x of the cache */
static double *Z;      /* N x K scores W_l . x_i */
static double loss[64];
static double *dloss;  /* K x K*D: gradient of loss(k) */

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
static long passes, hpasses; /* evaluations of values and gradients on all rows; Hessian evaluations */

static void compute(const double *w) {
	if (cx && memcmp(cx, w, sizeof(double) * K * D) == 0)
		return;
	if (!cx)
		cx = malloc(sizeof(double) * K * D);
	memcpy(cx, w, sizeof(double) * K * D);
	passes++;
	memset(dloss, 0, sizeof(double) * K * K * D);
	for (int k = 0; k < K; k++) {
		double s = 0;
		long nk = start[k + 1] - start[k];
		double *g = dloss + (long)k * K * D;
		for (long i = start[k]; i < start[k + 1]; i++) {
			const double *x = X + i * D;
			double *z = Z + i * K;
			for (int l = 0; l < K; l++) {
				double v = 0;
				for (int j = 0; j < D; j++)
					v += w[l * D + j] * x[j];
				z[l] = v;
			}
			for (int l = 0; l < K; l++) {
				if (l == k)
					continue;
				double zz = z[k] - z[l];
				double p = 1 / (1 + exp(zz));
				s += p;
				double dp = -p * (1 - p) / nk;
				for (int j = 0; j < D; j++) {
					g[k * D + j] += dp * x[j];
					g[l * D + j] -= dp * x[j];
				}
			}
		}
		loss[k] = s / nk;
	}
}

static Bool eval_f(Index n, Number *x, Bool new_x, Number *f, UserDataPtr u) {
	compute(x);
	*f = loss[0];
	return TRUE;
}
static Bool eval_grad_f(Index n, Number *x, Bool new_x, Number *g, UserDataPtr u) {
	compute(x);
	memcpy(g, dloss, sizeof(double) * K * D);
	return TRUE;
}
/* constraints: 0..K-2 loss(k) for k = 1..K-1; K-1..2K-2 ||W_k||^2 */
static Bool eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr u) {
	compute(x);
	for (int k = 1; k < K; k++)
		g[k - 1] = loss[k];
	for (int k = 0; k < K; k++) {
		double s = 0;
		for (int j = 0; j < D; j++)
			s += x[k * D + j] * x[k * D + j];
		g[K - 1 + k] = s;
	}
	return TRUE;
}
static Bool eval_jac_g(Index n, Number *x, Bool new_x, Index m, Index nele, Index *iRow, Index *jCol, Number *v, UserDataPtr u) {
	int e = 0;
	if (!v) {
		for (int k = 1; k < K; k++)
			for (int j = 0; j < K * D; j++)
				iRow[e] = k - 1, jCol[e] = j, e++;
		for (int k = 0; k < K; k++)
			for (int j = 0; j < D; j++)
				iRow[e] = K - 1 + k, jCol[e] = k * D + j, e++;
		return TRUE;
	}
	compute(x);
	for (int k = 1; k < K; k++)
		for (int j = 0; j < K * D; j++)
			v[e++] = dloss[(long)k * K * D + j];
	for (int k = 0; k < K; k++)
		for (int j = 0; j < D; j++)
			v[e++] = 2 * x[k * D + j];
	return TRUE;
}
/* dense lower triangle of the (K D) x (K D) Hessian, row by row */
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
	double *H = calloc((size_t)n * n, sizeof(double));
	double *S = malloc(sizeof(double) * D * D);
	for (int k = 0; k < K; k++) {
		double wk = k == 0 ? of : lam[k - 1];
		if (wk == 0)
			continue;
		long nk = start[k + 1] - start[k];
		for (int l = 0; l < K; l++) {
			if (l == k)
				continue;
			memset(S, 0, sizeof(double) * D * D);
			for (long i = start[k]; i < start[k + 1]; i++) {
				const double *xi = X + i * D;
				double zz = Z[i * K + k] - Z[i * K + l];
				double p = 1 / (1 + exp(zz));
				double c = p * (1 - p) * (1 - 2 * p);
				for (int a = 0; a < D; a++) {
					double ca = c * xi[a];
					for (int b = 0; b <= a; b++)
						S[a * D + b] += ca * xi[b];
				}
			}
			for (int a = 0; a < D; a++)
				for (int b = 0; b < a; b++)
					S[b * D + a] = S[a * D + b];
			for (int a = 0; a < D; a++)
				for (int b = 0; b < D; b++) {
					double s = wk * S[a * D + b] / nk;
					H[(k * D + a) * n + k * D + b] += s;
					H[(l * D + a) * n + l * D + b] += s;
					H[(k * D + a) * n + l * D + b] -= s;
					H[(l * D + a) * n + k * D + b] -= s;
				}
		}
	}
	for (int k = 0; k < K; k++)
		for (int j = 0; j < D; j++)
			H[(k * D + j) * n + k * D + j] += 2 * lam[K - 1 + k];
	int e = 0;
	for (int a = 0; a < n; a++)
		for (int b = 0; b <= a; b++)
			v[e++] = H[a * n + b];
	free(H);
	free(S);
	return TRUE;
}

/* the model's largest violation at the cached point: loss(k) - r for
 * k = 2..K and ||W_k|| - lambda */
static double violation(void) {
	if (!cx)
		return NAN;
	double v = 0;
	for (int k = 1; k < K; k++)
		v = fmax(v, loss[k] - R);
	for (int k = 0; k < K; k++) {
		double n2 = 0;
		for (int j = 0; j < D; j++)
			n2 += cx[k * D + j] * cx[k * D + j];
		v = fmax(v, sqrt(n2) - LAMBDA);
	}
	return v;
}

static Bool progress(Index mode, Index iter, Number obj, Number inf_pr, Number inf_du, Number mu, Number dn, Number reg, Number ad, Number ap, Index ls, UserDataPtr u) {
	/* the last evaluation is at the current iterate when the objectives
	 * agree; the line says so otherwise */
	fprintf(stderr, "iter %3d wall %8.3f cpu %8.3f passes %3ld hessians %3ld objective %.10g inf_pr %.3g viol %.3g%s\n", (int)iter, wall() - t0w, cpu() - t0c, passes, hpasses, obj, inf_pr, violation(), cx && obj == loss[0] ? "" : " (viol not at the iterate)");
	return TRUE;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: npc_ipopt FILE.svm [lambda r]\n");
		return 2;
	}
	if (argc >= 4)
		LAMBDA = atof(argv[2]), R = atof(argv[3]);
	double lw = wall(), lc = cpu();
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	/* first pass: rows, classes, features */
	long cap = 1 << 20, n = 0;
	int *lab = malloc(sizeof(int) * cap);
	double *raw = NULL;
	int maxd = 0, maxk = 0;
	static char line[1 << 16];
	long rawcap = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *q;
		int y = (int)strtol(p, &q, 10);
		if (q == p)
			continue;
		if (n == cap)
			cap *= 2, lab = realloc(lab, sizeof(int) * cap);
		if ((n + 1) * 64 > rawcap)
			rawcap = rawcap ? 2 * rawcap : 64L << 20, raw = realloc(raw, sizeof(double) * rawcap);
		memset(raw + n * 64, 0, sizeof(double) * 64);
		p = q;
		for (;;) {
			long j = strtol(p, &q, 10);
			if (q == p || *q != ':')
				break;
			p = q + 1;
			double v = strtod(p, &q);
			p = q;
			if (j < 1 || j > 64) {
				fprintf(stderr, "feature %ld out of range\n", j);
				return 1;
			}
			raw[n * 64 + j - 1] = v;
			if (j > maxd)
				maxd = (int)j;
		}
		lab[n++] = y;
		if (y > maxk)
			maxk = y;
	}
	fclose(f);
	K = maxk, D = maxd, N = n;
	start = calloc(K + 2, sizeof(long));
	for (long i = 0; i < N; i++)
		start[lab[i]]++; /* labels 1..K: count into start[label] */
	for (int k = 1; k <= K; k++)
		start[k] += start[k - 1];
	/* start[c] is now the first row of class c (0-based; label c+1), start[K] = N */
	long *pos = malloc(sizeof(long) * (K + 1));
	for (int k = 1; k <= K; k++)
		pos[k] = start[k - 1];
	X = malloc(sizeof(double) * N * D);
	for (long i = 0; i < N; i++) {
		long r = pos[lab[i]]++;
		memcpy(X + r * D, raw + i * 64, sizeof(double) * D);
	}
	free(raw);
	free(lab);
	Z = malloc(sizeof(double) * N * K);
	dloss = malloc(sizeof(double) * K * K * D);
	fprintf(stderr, "loaded %ld rows, %d features, %d classes: wall %.3f s, cpu %.3f s\n", N, D, K, wall() - lw, cpu() - lc);

	int nv = K * D, m = (K - 1) + K;
	double *xl = malloc(sizeof(double) * nv), *xu = malloc(sizeof(double) * nv);
	for (int j = 0; j < nv; j++)
		xl[j] = -1e20, xu[j] = 1e20;
	double *gl = malloc(sizeof(double) * m), *gu = malloc(sizeof(double) * m);
	for (int i = 0; i < K - 1; i++)
		gl[i] = -1e20, gu[i] = R;
	for (int k = 0; k < K; k++)
		gl[K - 1 + k] = -1e20, gu[K - 1 + k] = LAMBDA * LAMBDA;
	int nj = (K - 1) * nv + K * D, nh = nv * (nv + 1) / 2;
	IpoptProblem prob = CreateIpoptProblem(nv, xl, xu, m, gl, gu, nj, nh, 0, eval_f, eval_g, eval_grad_f, eval_jac_g, eval_h);
	AddIpoptNumOption(prob, "tol", 1e-8);
	AddIpoptIntOption(prob, "print_level", 0);
	SetIntermediateCallback(prob, progress);
	double *x = calloc(nv, sizeof(double)), obj;
	double *g = malloc(sizeof(double) * m);
	t0w = wall(), t0c = cpu();
	enum ApplicationReturnStatus st = IpoptSolve(prob, x, g, &obj, NULL, NULL, NULL, NULL);
	double sw = wall() - t0w, sc = cpu() - t0c;
	cx = NULL; /* recompute at the final point */
	double gx[64];
	eval_g(nv, x, TRUE, m, gx, NULL);
	double viol = 0;
	for (int i = 0; i < K - 1; i++)
		viol = fmax(viol, gx[i] - R);
	for (int k = 0; k < K; k++)
		viol = fmax(viol, sqrt(gx[K - 1 + k]) - LAMBDA);
	printf("status %d objective %.10g max_violation %.3g solve_wall %.3f solve_cpu %.3f load_wall %.3f\n", st, loss[0], viol, sw, sc, t0w - lw);
	FreeIpoptProblem(prob);
	return 0;
}
