//! Nested dissection ordering of a symmetric sparsity pattern (George 1973, *Nested dissection
//! of a regular finite element mesh*, SIAM J. Numer. Anal. 10; the level-structure separators
//! of George and Liu 1981, *Computer Solution of Large Sparse Positive Definite Systems*,
//! Prentice-Hall, ch. 8).
//!
//! Each part of the graph is split by a level set of a breadth-first search from a
//! pseudo-peripheral vertex (Gibbs, Poole and Stockmeyer's search for one): the level at which
//! the count of vertices passes half the part. Vertices of that level with no neighbour in the
//! level beyond it join the near side (they do not separate). Both sides are ordered
//! recursively before the separator; a part of at most [`LEAF`] vertices (or one that a level
//! set cannot split) is ordered by reverse Cuthill–McKee, the reversed search order, which
//! keeps its profile narrow. Disconnected parts are ordered one after the other.
//!
//! On planar and lattice-like graphs (the velocity-space Newton matrix of a 2D packing) the
//! factor has O(p log p) entries and O(p^1.5) flops, where minimum degree orderings grow
//! faster at large p; [`crate::linalg::jacobian_system::PrincipalCholesky`] counts the factor of
//! both and keeps the smaller.

/// Parts of at most this many vertices are not split further.
pub const LEAF: usize = 16;

/// The pattern's adjacency (no self loops) in compressed form.
pub struct Graph {
    ptr: Vec<usize>,
    adj: Vec<usize>,
}

impl Graph {
    /// The graph of a symmetric n x n pattern given by the (row, col) pairs of one triangle
    /// (diagonal entries are ignored; each off-diagonal pair once).
    pub fn from_triangle(n: usize, rows: &[usize], cols: &[usize]) -> Self {
        let mut deg = vec![0usize; n + 1];
        for (&i, &j) in rows.iter().zip(cols) {
            if i != j {
                deg[i + 1] += 1;
                deg[j + 1] += 1;
            }
        }
        for k in 0..n {
            deg[k + 1] += deg[k];
        }
        let ptr = deg.clone();
        let mut next = deg;
        let mut adj = vec![0usize; ptr[n]];
        for (&i, &j) in rows.iter().zip(cols) {
            if i != j {
                adj[next[i]] = j;
                next[i] += 1;
                adj[next[j]] = i;
                next[j] += 1;
            }
        }
        Graph { ptr, adj }
    }

    fn n(&self) -> usize {
        self.ptr.len() - 1
    }

    fn neighbours(&self, v: usize) -> &[usize] {
        &self.adj[self.ptr[v]..self.ptr[v + 1]]
    }
}

/// Scratch of the searches: `part[v]` is the id of the part v belongs to (only vertices of
/// the current part are visited), `level[v]` its level in the last search.
struct Work {
    part: Vec<usize>,
    level: Vec<usize>,
    next_id: usize,
}

/// The nested dissection order: `fwd[k]` is the vertex placed at position k.
pub fn order(g: &Graph) -> Vec<usize> {
    let n = g.n();
    let mut work = Work { part: vec![0; n], level: vec![usize::MAX; n], next_id: 1 };
    let mut fwd = Vec::with_capacity(n);
    // Explicit stack of parts still to order: (vertices, id); a separator is pushed as a
    // finished block after its two sides.
    enum Task {
        Split(Vec<usize>, usize),
        Emit(Vec<usize>),
    }
    let mut stack = vec![Task::Split((0..n).collect(), 0)];
    while let Some(task) = stack.pop() {
        let (vertices, id) = match task {
            Task::Emit(v) => {
                fwd.extend(v);
                continue;
            }
            Task::Split(v, id) => (v, id),
        };
        if vertices.is_empty() {
            continue;
        }
        // One connected component from a pseudo-peripheral vertex; the rest of the part is
        // ordered after it as a part of its own. The component is searched again when it is
        // popped (from its own pseudo-peripheral vertex, which can differ from this one).
        let start = pseudo_peripheral(g, &mut work, vertices[0], id);
        let levels = bfs(g, &mut work, start, id);
        let reached: usize = levels.iter().map(Vec::len).sum();
        if reached < vertices.len() {
            let rest_id = work.next_id;
            work.next_id += 1;
            let rest: Vec<usize> =
                vertices.into_iter().filter(|&v| work.level[v] == usize::MAX).collect();
            for &v in &rest {
                work.part[v] = rest_id;
            }
            clear_levels(&mut work, &levels);
            // Ordered: this component, then the rest (pushed first: popped last).
            stack.push(Task::Split(rest, rest_id));
            stack.push(Task::Split(levels.into_iter().flatten().collect(), id));
            continue;
        }
        clear_levels(&mut work, &levels);
        if reached <= LEAF || levels.len() < 3 {
            fwd.extend(levels.iter().flatten().rev());
            continue;
        }
        // The level (not the first or the last) of least ratio cut |S| / (|A| |B|), A and B
        // the vertices before and after it.
        let total = reached as f64;
        let mut before = levels[0].len() as f64;
        let mut m = 1;
        let mut best = f64::INFINITY;
        for (k, lv) in levels.iter().enumerate().take(levels.len() - 1).skip(1) {
            let s = lv.len() as f64;
            let after = total - before - s;
            let score = s / (before * after);
            if score < best {
                best = score;
                m = k;
            }
            before += s;
        }
        let (near_id, far_id) = (work.next_id, work.next_id + 1);
        work.next_id += 2;
        let mut near: Vec<usize> = levels[..m].iter().flatten().copied().collect();
        let far: Vec<usize> = levels[m + 1..].iter().flatten().copied().collect();
        for &v in &far {
            work.part[v] = far_id;
        }
        let mut separator = Vec::with_capacity(levels[m].len());
        for &v in &levels[m] {
            if g.neighbours(v).iter().any(|&u| work.part[u] == far_id) {
                separator.push(v);
            } else {
                near.push(v);
            }
        }
        for &v in &near {
            work.part[v] = near_id;
        }
        for &v in &separator {
            work.part[v] = usize::MAX;
        }
        stack.push(Task::Emit(separator));
        stack.push(Task::Split(far, far_id));
        stack.push(Task::Split(near, near_id));
    }
    fwd
}

/// Resets `level` of the vertices of a search.
fn clear_levels(work: &mut Work, levels: &[Vec<usize>]) {
    for &v in levels.iter().flatten() {
        work.level[v] = usize::MAX;
    }
}

/// Breadth-first levels from `start` within part `id`; leaves `level` set for the reached
/// vertices (the caller clears it).
fn bfs(g: &Graph, work: &mut Work, start: usize, id: usize) -> Vec<Vec<usize>> {
    let mut levels = Vec::new();
    let mut current = vec![start];
    work.level[start] = 0;
    loop {
        let depth = levels.len() + 1;
        let mut next = Vec::new();
        for &v in &current {
            for &u in g.neighbours(v) {
                if work.part[u] == id && work.level[u] == usize::MAX {
                    work.level[u] = depth;
                    next.push(u);
                }
            }
        }
        levels.push(current);
        if next.is_empty() {
            return levels;
        }
        current = next;
    }
}

/// Gibbs–Poole–Stockmeyer's pseudo-peripheral vertex: from `v`, search; restart from a vertex
/// of least degree in the last level while that deepens the search (at most 8 times).
fn pseudo_peripheral(g: &Graph, work: &mut Work, v: usize, id: usize) -> usize {
    let mut start = v;
    let mut depth = 0;
    for _ in 0..8 {
        let levels = bfs(g, work, start, id);
        let candidate = levels
            .last()
            .and_then(|last| last.iter().copied().min_by_key(|&u| g.neighbours(u).len()));
        clear_levels(work, &levels);
        match candidate {
            Some(c) if levels.len() > depth => {
                depth = levels.len();
                start = c;
            }
            _ => break,
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 5-point grid graph of an a x b lattice.
    fn grid(a: usize, b: usize) -> (usize, Vec<usize>, Vec<usize>) {
        let (mut rows, mut cols) = (Vec::new(), Vec::new());
        let id = |x: usize, y: usize| x * b + y;
        for x in 0..a {
            for y in 0..b {
                rows.push(id(x, y));
                cols.push(id(x, y));
                if x + 1 < a {
                    rows.push(id(x, y));
                    cols.push(id(x + 1, y));
                }
                if y + 1 < b {
                    rows.push(id(x, y));
                    cols.push(id(x, y + 1));
                }
            }
        }
        (a * b, rows, cols)
    }

    fn is_permutation(fwd: &[usize], n: usize) -> bool {
        let mut seen = vec![false; n];
        fwd.len() == n && fwd.iter().all(|&v| v < n && !std::mem::replace(&mut seen[v], true))
    }

    #[test]
    fn orders_every_vertex_once_also_when_disconnected() {
        let (n, mut rows, mut cols) = grid(20, 30);
        // A second grid beside the first, and isolated vertices.
        let (m, r2, c2) = grid(15, 15);
        rows.extend(r2.iter().map(|r| r + n));
        cols.extend(c2.iter().map(|c| c + n));
        let total = n + m + 5;
        let g = Graph::from_triangle(total, &rows, &cols);
        let fwd = order(&g);
        assert!(is_permutation(&fwd, total));
        assert!(is_permutation(&order(&Graph::from_triangle(0, &[], &[])), 0));
        assert!(is_permutation(&order(&Graph::from_triangle(1, &[0], &[0])), 1));
    }

    #[test]
    fn the_last_vertices_separate_the_grid() {
        // The last block of the order (the top separator) splits a 40 x 40 grid in two.
        let (n, rows, cols) = grid(40, 40);
        let g = Graph::from_triangle(n, &rows, &cols);
        let fwd = order(&g);
        assert!(is_permutation(&fwd, n));
        // Removing vertices from the end of the order, the graph falls apart once the top
        // separator (a level set of a search, at most 2 * 40 vertices) is gone.
        let mut removed = vec![false; n];
        let mut cut = None;
        for (k, &v) in fwd.iter().rev().enumerate().take(100) {
            removed[v] = true;
            if components(&g, &removed) >= 2 {
                cut = Some(k + 1);
                break;
            }
        }
        let cut = cut.expect("a short suffix of the order separates the grid");
        assert!(cut <= 80, "separator of {cut} vertices");
    }

    fn components(g: &Graph, removed: &[bool]) -> usize {
        let n = g.n();
        let mut seen = removed.to_vec();
        let mut count = 0;
        for s in 0..n {
            if seen[s] {
                continue;
            }
            count += 1;
            let mut stack = vec![s];
            seen[s] = true;
            while let Some(v) = stack.pop() {
                for &u in g.neighbours(v) {
                    if !seen[u] {
                        seen[u] = true;
                        stack.push(u);
                    }
                }
            }
        }
        count
    }
}
