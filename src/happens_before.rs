//! The happens-before graph of a merged timeline, kept for the one question reports ask of it: does the
//! logs' own order (a node's sequence, a causal fact) put event `a` before event `b`?
//!
//! Events are numbered in the merged order, a topological order of the graph, so every edge goes forward and a
//! search from `a` never needs an event past `b`: a question costs the events between the two (a clock skew's
//! worth), not the whole run. The graph is stored as compact adjacency lists (two `u32` arrays) rather than
//! as the petgraph graph the merge sorted, which costs several times as much per event.

/// Successor lists in merged order.
#[derive(Debug, Default)]
pub struct HappensBefore {
    /// The successors of event `i` are `targets[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    targets: Vec<u32>,
    /// Every edge goes forward. False only when the logs contradict themselves (a cycle the merge broke by
    /// clocks); a search then cannot stop at `b`.
    forward: bool,
}

impl HappensBefore {
    /// The graph of `n` events with these edges (from, to), as positions in the merged order.
    pub fn new(n: usize, edges: &[(u32, u32)]) -> HappensBefore {
        let mut start = vec![0u32; n + 1];
        for &(from, _) in edges {
            start[from as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(from, to) in edges {
            targets[next[from as usize] as usize] = to;
            next[from as usize] += 1;
        }
        HappensBefore {
            forward: edges.iter().all(|&(from, to)| from < to),
            start,
            targets,
        }
    }

    /// The same graph with event `i` numbered `position[i]` (the old one is freed before the new one is
    /// built: the merge's peak memory).
    pub fn renumbered(self, position: &[u32]) -> HappensBefore {
        let n = self.start.len() - 1;
        let mut edges = Vec::with_capacity(self.targets.len());
        for i in 0..n {
            for &j in self.successors(i) {
                edges.push((position[i], position[j as usize]));
            }
        }
        drop(self);
        HappensBefore::new(n, &edges)
    }

    /// The events right after event `i`.
    pub fn successors(&self, i: usize) -> &[u32] {
        &self.targets[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Is there a path from `a` to `b` (an event reaches itself)?
    pub fn reaches(&self, a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        if self.forward && a > b {
            return false;
        }
        // Seen events: only those in a..=b can be on a forward path.
        let (base, len) = if self.forward {
            (a, b - a + 1)
        } else {
            (0, self.start.len() - 1)
        };
        let mut seen = vec![false; len];
        let mut stack = vec![a];
        seen[a - base] = true;
        while let Some(i) = stack.pop() {
            for &j in self.successors(i) {
                let j = j as usize;
                if j == b {
                    return true;
                }
                if (self.forward && j > b) || seen[j - base] {
                    continue;
                }
                seen[j - base] = true;
                stack.push(j);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_edges() {
        // 0 → 1 → 3, 0 → 2, 4 alone.
        let g = HappensBefore::new(5, &[(0, 1), (1, 3), (0, 2)]);
        assert!(g.reaches(0, 3));
        assert!(g.reaches(0, 2));
        assert!(g.reaches(1, 3));
        assert!(g.reaches(3, 3));
        assert!(!g.reaches(2, 3));
        assert!(!g.reaches(3, 0));
        assert!(!g.reaches(0, 4));
        assert!(!g.reaches(1, 2));
    }

    #[test]
    fn a_path_may_pass_events_outside_the_two_chains() {
        // Two chains joined through a third: 0 → 2 → 5, 1 → 4.
        let g = HappensBefore::new(6, &[(0, 2), (2, 5), (1, 4)]);
        assert!(g.reaches(0, 5));
        assert!(!g.reaches(1, 5));
    }

    #[test]
    fn backward_edges_are_searched_whole() {
        // A cycle the merge broke by clocks: 0 → 3 → 1 (backward), 1 → 2.
        let g = HappensBefore::new(4, &[(0, 3), (3, 1), (1, 2)]);
        assert!(g.reaches(0, 2));
        assert!(g.reaches(3, 2));
        assert!(!g.reaches(2, 0));
    }

    #[test]
    fn an_empty_graph_has_no_path() {
        let g = HappensBefore::new(3, &[]);
        assert!(!g.reaches(0, 2));
        assert!(g.reaches(1, 1));
    }
}
