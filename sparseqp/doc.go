// Package sparseqp solves sparse convex quadratic programs
//
//	minimize    ½ xᵀPx + qᵀx
//	subject to  l <= Ax <= u,  lb <= x <= ub
//
// with P symmetric positive semidefinite and A sparse, by Mehrotra's
// primal-dual interior-point method on the sparse quasidefinite KKT
// system, factored by a sparse LDLᵀ (package-local: minimum-degree order,
// symbolic analysis once per pattern, numeric factorisation per
// iteration, iterative refinement). See docs/sparseqp.md.
package sparseqp
