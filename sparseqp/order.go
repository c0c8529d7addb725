package sparseqp

import (
	"fmt"
	"math"
)

// minDegreeOrder returns a fill-reducing elimination order of the n×n
// symmetric pattern whose upper triangle (entries i <= j) is the CSC
// pattern cp, ci: order[k] is the node eliminated k-th. It is the
// minimum-degree method on the explicit elimination graph (no quotient
// graph, no supervariables): at each step a node of least current degree
// is eliminated and its neighbours become a clique. Nodes of degree above
// max(16, 10·sqrt(n)) in the original graph ("dense" rows, as in AMD) are
// set aside and ordered last, so that they do not make every elimination
// touch them.
//
// The elimination graph's edges are a subset of the factor's nonzeros, so
// its memory is bounded by the factor's; when the edges exceed maxEdges the
// order is abandoned with an error (the factor would be as large), and so
// it is when the work of the updates exceeds maxWork (the factorisation
// would cost about as much), so that its time is bounded too.
func minDegreeOrder(n int, cp, ci []int, maxEdges int, maxWork float64) ([]int, error) {
	deg := make([]int, n)
	for j := range n {
		for p := cp[j]; p < cp[j+1]; p++ {
			if i := ci[p]; i != j {
				deg[i]++
				deg[j]++
			}
		}
	}
	limit := max(16, int(10*math.Sqrt(float64(n))))
	dense := make([]bool, n)
	for v := range n {
		dense[v] = deg[v] > limit
	}
	adj := make([][]int32, n)
	for v := range n {
		adj[v] = make([]int32, 0, deg[v])
	}
	for j := range n {
		for p := cp[j]; p < cp[j+1]; p++ {
			i := ci[p]
			if i == j || dense[i] || dense[j] {
				continue
			}
			adj[i] = append(adj[i], int32(j))
			adj[j] = append(adj[j], int32(i))
		}
	}
	// buckets of nodes by current degree: doubly linked lists
	head := make([]int32, n+1)
	next := make([]int32, n)
	prev := make([]int32, n)
	for d := range head {
		head[d] = -1
	}
	cur := make([]int, n)
	insert := func(v int) {
		d := cur[v]
		prev[v] = -1
		next[v] = head[d]
		if head[d] >= 0 {
			prev[head[d]] = int32(v)
		}
		head[d] = int32(v)
	}
	remove := func(v int) {
		if prev[v] >= 0 {
			next[prev[v]] = next[v]
		} else {
			head[cur[v]] = next[v]
		}
		if next[v] >= 0 {
			prev[next[v]] = prev[v]
		}
	}
	edges := 0
	sparse := 0
	for v := n - 1; v >= 0; v-- {
		if !dense[v] {
			cur[v] = len(adj[v])
			edges += cur[v]
			insert(v)
			sparse++
		}
	}
	mark := make([]int32, n)
	stamp := int32(0)
	work := 0.0
	order := make([]int, 0, n)
	mindeg := 0
	for len(order) < sparse {
		for head[mindeg] < 0 {
			mindeg++
		}
		v := int(head[mindeg])
		remove(v)
		order = append(order, v)
		nb := adj[v]
		edges -= len(nb)
		for _, u32 := range nb {
			u := int(u32)
			stamp++
			if stamp == math.MaxInt32 {
				clear(mark)
				stamp = 1
			}
			mark[u] = stamp
			list := adj[u]
			k := 0
			for _, w := range list {
				if int(w) != v {
					list[k] = w
					k++
					mark[w] = stamp
				}
			}
			list = list[:k]
			for _, w := range nb {
				if mark[w] != stamp {
					list = append(list, w)
					mark[w] = stamp
				}
			}
			edges += len(list) - len(adj[u])
			work += float64(k + len(nb))
			adj[u] = list
			remove(u)
			cur[u] = len(list)
			insert(u)
			mindeg = min(mindeg, cur[u])
		}
		adj[v] = nil
		if edges > 2*maxEdges {
			return nil, fmt.Errorf("sparseqp: the factor of the %d×%d system would exceed %d nonzeros", n, n, maxEdges)
		}
		if work > maxWork {
			return nil, fmt.Errorf("sparseqp: ordering the %d×%d system would take more than %.3g operations", n, n, maxWork)
		}
	}
	for v := range n {
		if dense[v] {
			order = append(order, v)
		}
	}
	return order, nil
}
