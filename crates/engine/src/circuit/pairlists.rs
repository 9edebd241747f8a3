//! The circuit simulator's bulk flows per (source, destination) endpoint pair, in flow order, as linked lists:
//! a datagram flow that has handed out its last byte is unlinked, so an uplink looking for work walks the
//! flows that may still send, not every flow the pair ever had (docs/circuit-engine.md, "How it runs fast").

/// No flow: the end of a list.
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Debug, Default)]
pub(crate) struct PairLists {
    /// Per list: its first flow (NONE: empty).
    head: Vec<u32>,
    /// Per flow: the next and the previous flow of its list (NONE: none; unlinked flows keep stale links).
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Per list: its flows' start times never decrease along it (checked once; unlinking keeps it true).
    in_order: Vec<bool>,
}

impl PairLists {
    /// `lists[k]`: the flows of list k in flow order; `flows`: how many flows the run has; `start(f)`: flow
    /// f's start time.
    pub(crate) fn new(lists: &[Vec<u32>], flows: usize, start: impl Fn(u32) -> u64) -> Self {
        let mut next = vec![NONE; flows];
        let mut prev = vec![NONE; flows];
        let mut head = Vec::with_capacity(lists.len());
        let mut in_order = Vec::with_capacity(lists.len());
        for l in lists {
            head.push(l.first().copied().unwrap_or(NONE));
            for w in l.windows(2) {
                next[w[0] as usize] = w[1];
                prev[w[1] as usize] = w[0];
            }
            in_order.push(l.windows(2).all(|w| start(w[0]) <= start(w[1])));
        }
        PairLists {
            head,
            next,
            prev,
            in_order,
        }
    }

    #[inline]
    pub(crate) fn first(&self, list: usize) -> u32 {
        self.head[list]
    }

    #[inline]
    pub(crate) fn next(&self, f: u32) -> u32 {
        self.next[f as usize]
    }

    /// Do list `list`'s flows start in order (so that once one has not started, none after it has)?
    #[inline]
    pub(crate) fn in_order(&self, list: usize) -> bool {
        self.in_order[list]
    }

    /// The flows of list `list`, in flow order.
    pub(crate) fn iter(&self, list: usize) -> impl Iterator<Item = u32> + '_ {
        let mut f = self.head[list];
        std::iter::from_fn(move || {
            (f != NONE).then(|| {
                let at = f;
                f = self.next[at as usize];
                at
            })
        })
    }

    /// Take flow `f` out of list `list` (it must be linked there, and is unlinked once only).
    pub(crate) fn unlink(&mut self, list: usize, f: u32) {
        let (p, n) = (self.prev[f as usize], self.next[f as usize]);
        if p == NONE {
            self.head[list] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlinking_keeps_the_others_in_order() {
        let starts = [0u64, 5, 3, 7, 9];
        let l = PairLists::new(&[vec![0, 2, 3], vec![1, 4], vec![]], 5, |f| {
            starts[f as usize]
        });
        assert!(l.in_order(0) && l.in_order(1) && l.in_order(2));
        let mut l = l;
        l.unlink(0, 2);
        assert_eq!(l.iter(0).collect::<Vec<_>>(), vec![0, 3]);
        l.unlink(0, 0);
        assert_eq!(l.iter(0).collect::<Vec<_>>(), vec![3]);
        l.unlink(1, 4);
        assert_eq!(l.iter(1).collect::<Vec<_>>(), vec![1]);
        l.unlink(0, 3);
        assert_eq!(l.first(0), NONE);
        let late_first = PairLists::new(&[vec![1, 2]], 3, |f| starts[f as usize]);
        assert!(!late_first.in_order(0));
    }
}
