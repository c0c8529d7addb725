/*
 * np_hinge_ipopt: docs/experiments/np_hinge_gen.qrc solved by IPOPT through
 * its smooth reformulation, the reference optimum of the hinge benchmark in
 * docs/performance.md (issue 30). Not part of the build or of CI; it needs
 * IPOPT's C interface (Debian: apt-get install coinor-libipopt-dev).
 *
 *   cc -O2 -o /tmp/np_hinge_ipopt docs/experiments/np_hinge_ipopt.c -I/usr/include/coin -lipopt -lm
 *   /tmp/np_hinge_ipopt /tmp/npc-1000000-16x10-s18.svm [lambda r]
 *
 * The model (d features from a LIBSVM file with labels 1..K; rows with
 * label <= 5 are the positives P, the others the negatives N):
 *
 *   minimize mean_{i in N} hinge(-score_i)
 *   s.t.     mean_{i in P} hinge(score_i) <= r,  ||w|| <= lambda,  -10 <= b <= 10,
 *   score_i = w . x_i + b,  hinge(z) = max(0, 1 - z),
 *
 * with lambda = 10 and r = 0.3 as in the model file. The reformulation has
 * one slack per row: variables (w, b, s), s >= 0,
 *
 *   minimize sum_{i in N} s_i
 *   s.t.     s_i + t_i score_i >= 1     (t_i = 1 on P, -1 on N; one linear row per data row)
 *            sum_{i in P} s_i <= r |P|,  ||w||^2 <= lambda^2,
 *
 * smooth, with the exact Hessian (2 mu I on w). The sums, not the means:
 * with the means each slack's cost is 1/|N|, and the barrier keeps the
 * slacks of rows past the margin near mu |N| above 0, which left the final
 * point 1.6e-5 above the optimum on 10^4 rows (with tol 1e-8). It starts from w = 0,
 * b = 0, s = 1 (the hinges at that point). Per iteration it prints the wall
 * and CPU seconds since the solve began, IPOPT's objective (the slacks'
 * mean, an upper bound on the model's objective at a feasible iterate), and
 * the model's own objective and largest constraint violation recomputed from
 * (w, b) at the last evaluated point (the iterate, unless the line says
 * otherwise); then the loading time, the solve time and the final point's
 * objective and violation recomputed here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "IpStdCInterface.h"

#define MAXD 64

static int D;          /* features */
static long N;         /* rows */
static double *X;      /* N x D */
static double *T;      /* t_i: 1 on P, -1 on N */
static long nP, nN;
static double LAMBDA = 10, R = 0.3;

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

/* the model at (w, b): objective, pos_loss - r, ||w|| - lambda */
static double mobj = NAN, mviol = NAN, mslack = NAN;
static void model(const double *x) {
	const double *w = x, b = x[D];
	double sn = 0, sp = 0;
	for (long i = 0; i < N; i++) {
		double z = b;
		const double *xi = X + i * D;
		for (int j = 0; j < D; j++)
			z += w[j] * xi[j];
		double h = fmax(0, 1 - T[i] * z);
		if (T[i] > 0)
			sp += h;
		else
			sn += h;
	}
	double n2 = 0;
	for (int j = 0; j < D; j++)
		n2 += w[j] * w[j];
	mobj = sn / nN;
	mviol = fmax(0, fmax(sp / nP - R, sqrt(n2) - LAMBDA));
	mviol = fmax(mviol, fmax(b - 10, -10 - b));
	mslack = NAN;
}

static Bool eval_f(Index n, Number *x, Bool new_x, Number *f, UserDataPtr u) {
	double s = 0;
	for (long i = 0; i < N; i++)
		if (T[i] < 0)
			s += x[D + 1 + i];
	*f = s;
	return TRUE;
}
static Bool eval_grad_f(Index n, Number *x, Bool new_x, Number *g, UserDataPtr u) {
	memset(g, 0, sizeof(double) * n);
	for (long i = 0; i < N; i++)
		if (T[i] < 0)
			g[D + 1 + i] = 1;
	return TRUE;
}
/* constraints: 0..N-1 s_i + t_i score_i; N: mean of s on P; N+1: ||w||^2 */
static Bool eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr u) {
	const double *w = x, b = x[D];
	double sp = 0, n2 = 0;
	for (long i = 0; i < N; i++) {
		double z = b;
		const double *xi = X + i * D;
		for (int j = 0; j < D; j++)
			z += w[j] * xi[j];
		g[i] = x[D + 1 + i] + T[i] * z;
		if (T[i] > 0)
			sp += x[D + 1 + i];
	}
	for (int j = 0; j < D; j++)
		n2 += w[j] * w[j];
	g[N] = sp;
	g[N + 1] = n2;
	model(x);
	return TRUE;
}
static Bool eval_jac_g(Index n, Number *x, Bool new_x, Index m, Index nele, Index *iRow, Index *jCol, Number *v, UserDataPtr u) {
	long e = 0;
	if (!v) {
		for (long i = 0; i < N; i++) {
			for (int j = 0; j <= D; j++)
				iRow[e] = i, jCol[e] = j, e++;
			iRow[e] = i, jCol[e] = D + 1 + i, e++;
		}
		for (long i = 0; i < N; i++)
			if (T[i] > 0)
				iRow[e] = N, jCol[e] = D + 1 + i, e++;
		for (int j = 0; j < D; j++)
			iRow[e] = N + 1, jCol[e] = j, e++;
		return TRUE;
	}
	for (long i = 0; i < N; i++) {
		const double *xi = X + i * D;
		for (int j = 0; j < D; j++)
			v[e++] = T[i] * xi[j];
		v[e++] = T[i];
		v[e++] = 1;
	}
	for (long i = 0; i < N; i++)
		if (T[i] > 0)
			v[e++] = 1;
	for (int j = 0; j < D; j++)
		v[e++] = 2 * x[j];
	return TRUE;
}
/* the Lagrangian's Hessian: 2 mu I on w, mu the ball's multiplier */
static Bool eval_h(Index n, Number *x, Bool new_x, Number of, Index m, Number *lam, Bool new_lam, Index nele, Index *iRow, Index *jCol, Number *v, UserDataPtr u) {
	for (int j = 0; j < D; j++) {
		if (!v)
			iRow[j] = j, jCol[j] = j;
		else
			v[j] = 2 * lam[N + 1];
	}
	return TRUE;
}

static Bool progress(Index mode, Index iter, Number obj, Number inf_pr, Number inf_du, Number mu, Number dn, Number reg, Number ad, Number ap, Index ls, UserDataPtr u) {
	fprintf(stderr, "iter %3d wall %8.3f cpu %8.3f objective %.10g inf_pr %.3g model_objective %.10g model_viol %.3g\n", (int)iter, wall() - t0w, cpu() - t0c, obj / nN, inf_pr, mobj, mviol);
	return TRUE;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: np_hinge_ipopt FILE.svm [lambda r]\n");
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
	long cap = 1 << 20;
	X = malloc(sizeof(double) * cap * MAXD);
	T = malloc(sizeof(double) * cap);
	static char line[1 << 16];
	while (fgets(line, sizeof line, f)) {
		char *p = line, *q;
		int y = (int)strtol(p, &q, 10);
		if (q == p)
			continue;
		if (N == cap) {
			cap *= 2;
			X = realloc(X, sizeof(double) * cap * MAXD);
			T = realloc(T, sizeof(double) * cap);
		}
		double *xi = X + N * MAXD;
		memset(xi, 0, sizeof(double) * MAXD);
		p = q;
		for (;;) {
			long j = strtol(p, &q, 10);
			if (q == p || *q != ':')
				break;
			p = q + 1;
			double v = strtod(p, &q);
			p = q;
			if (j < 1 || j > MAXD) {
				fprintf(stderr, "feature %ld out of range\n", j);
				return 1;
			}
			xi[j - 1] = v;
			if (j > D)
				D = (int)j;
		}
		T[N] = y <= 5 ? 1 : -1;
		if (y <= 5)
			nP++;
		else
			nN++;
		N++;
	}
	fclose(f);
	/* compact the rows to D columns */
	for (long i = 0; i < N; i++)
		memmove(X + i * D, X + i * MAXD, sizeof(double) * D);
	fprintf(stderr, "loaded %ld rows (%ld positive, %ld negative), %d features: wall %.3f s, cpu %.3f s\n", N, nP, nN, D, wall() - lw, cpu() - lc);

	long nv = D + 1 + N, m = N + 2;
	double *xl = malloc(sizeof(double) * nv), *xu = malloc(sizeof(double) * nv);
	for (int j = 0; j < D; j++)
		xl[j] = -1e20, xu[j] = 1e20;
	xl[D] = -10, xu[D] = 10;
	for (long i = 0; i < N; i++)
		xl[D + 1 + i] = 0, xu[D + 1 + i] = 1e20;
	double *gl = malloc(sizeof(double) * m), *gu = malloc(sizeof(double) * m);
	for (long i = 0; i < N; i++)
		gl[i] = 1, gu[i] = 1e20;
	gl[N] = -1e20, gu[N] = R * nP;
	gl[N + 1] = -1e20, gu[N + 1] = LAMBDA * LAMBDA;
	long nj = N * (D + 2) + nP + D;
	IpoptProblem prob = CreateIpoptProblem((Index)nv, xl, xu, (Index)m, gl, gu, (Index)nj, D, 0, eval_f, eval_g, eval_grad_f, eval_jac_g, eval_h);
	AddIpoptNumOption(prob, "tol", 1e-8);
	AddIpoptIntOption(prob, "print_level", 0);
	SetIntermediateCallback(prob, progress);
	double *x = calloc(nv, sizeof(double)), obj;
	for (long i = 0; i < N; i++)
		x[D + 1 + i] = 1;
	double *g = malloc(sizeof(double) * m);
	t0w = wall(), t0c = cpu();
	enum ApplicationReturnStatus st = IpoptSolve(prob, x, g, &obj, NULL, NULL, NULL, NULL);
	double sw = wall() - t0w, sc = cpu() - t0c;
	model(x);
	printf("status %d objective %.10g model_objective %.10g max_violation %.3g solve_wall %.3f solve_cpu %.3f load_wall %.3f\n", st, obj / nN, mobj, mviol, sw, sc, t0w - lw);
	FreeIpoptProblem(prob);
	return 0;
}
