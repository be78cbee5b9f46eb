//! A set of vertices as a bitmap: the in-memory form of the per-entry marks a pass keeps in the
//! chunked store.

use super::graph::Vertex;

/// A set of vertices below a bound fixed at creation, one bit each, with its size kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexSet {
    bits: Vec<u64>,
    len: usize,
}

impl VertexSet {
    /// An empty set of vertices below `n`.
    pub fn new(n: usize) -> VertexSet {
        VertexSet {
            bits: vec![0; n.div_ceil(64)],
            len: 0,
        }
    }

    /// Is `v` in the set?
    pub fn contains(&self, v: Vertex) -> bool {
        self.bits[v / 64] >> (v % 64) & 1 == 1
    }

    /// Adds `v`; true if it was not there.
    pub fn insert(&mut self, v: Vertex) -> bool {
        let new = !self.contains(v);
        self.bits[v / 64] |= 1 << (v % 64);
        self.len += new as usize;
        new
    }

    /// Removes `v`; true if it was there.
    pub fn remove(&mut self, v: Vertex) -> bool {
        let had = self.contains(v);
        self.bits[v / 64] &= !(1 << (v % 64));
        self.len -= had as usize;
        had
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Has the set no member?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The members, increasing.
    pub fn iter(&self) -> impl Iterator<Item = Vertex> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }

    /// Adds every member of `other` (a set over the same vertices).
    pub fn union_with(&mut self, other: &VertexSet) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= b;
        }
        self.len = self.bits.iter().map(|w| w.count_ones() as usize).sum();
    }
}
