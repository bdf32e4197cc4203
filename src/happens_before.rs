//! The happens-before graph of a merged timeline, kept for the one question reports ask of it: does the
//! logs' own order (a node's sequence, a causal fact) put event `a` before event `b`?
//!
//! Events are numbered in the merged order, a topological order of the graph, so every edge goes forward and a
//! search from `a` never needs an event past `b`: a question costs the events between the two (a clock skew's
//! worth), not the whole run.
//!
//! The graph is chains (one input's events of one node; a test-output input's events) and a few other edges
//! (rotated files, causal facts): see [`crate::timeline`]'s merge. A chain's edges are not stored: the
//! question walks the events from `a` to `b`, and an event is reached when an earlier event of its chain was,
//! or a listed edge from a reached event ends at it. So the graph costs nothing per event. Only when the logs
//! contradict themselves (a cycle the merge broke by clocks) is the whole graph kept, as adjacency lists.

use rustc_hash::FxHashSet;

/// The happens-before graph, over places in the merged order.
#[derive(Debug)]
pub enum HappensBefore {
    /// Every edge goes forward: the chains, implicit, and the other edges (from, to), sorted.
    Chains(Vec<(u32, u32)>),
    /// Some edge goes backward: every edge, chains included.
    Whole(Adjacency),
}

impl Default for HappensBefore {
    fn default() -> Self {
        HappensBefore::Chains(Vec::new())
    }
}

impl HappensBefore {
    /// A graph whose order keeps every edge: its chains, and `edges` (sorted, each forward).
    pub fn chains(edges: Vec<(u32, u32)>) -> HappensBefore {
        debug_assert!(edges.windows(2).all(|w| w[0] <= w[1]));
        debug_assert!(edges.iter().all(|&(f, t)| f < t));
        HappensBefore::Chains(edges)
    }

    /// The graph of `n` events with every edge listed (from, to).
    pub fn whole(n: usize, edges: &[(u32, u32)]) -> HappensBefore {
        HappensBefore::Whole(Adjacency::new(n, edges))
    }

    /// Is there a path from `a` to `b` (an event reaches itself)? `chain(i)`: which chain event `i` is on
    /// (not asked of a whole graph).
    pub fn reaches(&self, a: usize, b: usize, chain: impl Fn(usize) -> u64) -> bool {
        let edges = match self {
            HappensBefore::Whole(g) => return g.reaches(a, b),
            HappensBefore::Chains(edges) => edges,
        };
        if a == b {
            return true;
        }
        if a > b {
            return false;
        }
        let mut chains: FxHashSet<u64> = FxHashSet::default();
        let mut targets: FxHashSet<u32> = FxHashSet::default();
        for i in a..=b {
            let on = chain(i);
            if !(i == a || targets.contains(&(i as u32)) || chains.contains(&on)) {
                continue;
            }
            if i == b {
                return true;
            }
            chains.insert(on);
            let from = i as u32;
            let start = edges.partition_point(|e| e.0 < from);
            for &(_, to) in edges[start..].iter().take_while(|e| e.0 == from) {
                targets.insert(to);
            }
        }
        false
    }
}

/// Successor lists in merged order.
#[derive(Debug, Default)]
pub struct Adjacency {
    /// The successors of event `i` are `targets[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    targets: Vec<u32>,
    /// Every edge goes forward. False only when the logs contradict themselves (a cycle the merge broke by
    /// clocks); a search then cannot stop at `b`.
    forward: bool,
}

impl Adjacency {
    /// The graph of `n` events with these edges (from, to), as positions in the merged order.
    pub fn new(n: usize, edges: &[(u32, u32)]) -> Adjacency {
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
        Adjacency {
            forward: edges.iter().all(|&(from, to)| from < to),
            start,
            targets,
        }
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
        let g = Adjacency::new(5, &[(0, 1), (1, 3), (0, 2)]);
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
        let g = Adjacency::new(6, &[(0, 2), (2, 5), (1, 4)]);
        assert!(g.reaches(0, 5));
        assert!(!g.reaches(1, 5));
    }

    #[test]
    fn backward_edges_are_searched_whole() {
        // A cycle the merge broke by clocks: 0 → 3 → 1 (backward), 1 → 2.
        let g = Adjacency::new(4, &[(0, 3), (3, 1), (1, 2)]);
        assert!(g.reaches(0, 2));
        assert!(g.reaches(3, 2));
        assert!(!g.reaches(2, 0));
    }

    #[test]
    fn an_empty_graph_has_no_path() {
        let g = Adjacency::new(3, &[]);
        assert!(!g.reaches(0, 2));
        assert!(g.reaches(1, 1));
    }
}
