// Package sparseqp solves sparse convex quadratic programs
//
//	minimize    ½ xᵀPx + qᵀx
//	subject to  L <= Ax <= U,  LB <= x <= UB
//
// with P symmetric positive semidefinite and A sparse, by Mehrotra's
// primal-dual interior-point method on the sparse quasidefinite KKT
// system (or, as an option, OSQP's ADMM on the same pattern), factored by
// a sparse LDLᵀ of this package (minimum-degree order and symbolic
// analysis once per pattern, numeric factorisation per iteration,
// iterative refinement), on the equilibrated program, finished by the
// exact solution on the active set.
//
// Every Status is decided on the returned point, measured on the program
// as given: Solved within the tolerances row by row and variable by
// variable, PrimalInfeasible and DualInfeasible with a certificate that
// the data verify. A Solver keeps the analysis and every buffer for
// repeated solves of one pattern. See docs/sparseqp.md.
package sparseqp
