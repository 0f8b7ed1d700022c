//! Sequence alignment for `rtrace diff`: Myers' O((N+M)·D) shortest edit
//! script on interned keys, after stripping the common prefix and suffix,
//! bounded to `max_d` edits; beyond that a windowed greedy resync keeps
//! the cost linear (a longer, still valid, edit script).

use std::collections::HashMap;

/// One step of an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `a[i]` and `b[j]` have the same key.
    Same(usize, usize),
    /// `a[i]` has no counterpart in `b`.
    OnlyA(usize),
    /// `b[j]` has no counterpart in `a`.
    OnlyB(usize),
}

/// Edit budget for the exact Myers pass.
pub const MAX_D: usize = 400;
/// Look-ahead of the greedy fallback.
const WINDOW: usize = 128;

/// Aligns `a` with `b`: an edit script that is minimal when the sequences
/// differ by at most `max_d` insertions and deletions.
pub fn align(a: &[u32], b: &[u32], max_d: usize) -> Vec<Op> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Same(i, i)).collect();
    let mid = myers(ma, mb, max_d).unwrap_or_else(|| greedy(ma, mb));
    ops.extend(mid.into_iter().map(|op| match op {
        Op::Same(i, j) => Op::Same(i + pre, j + pre),
        Op::OnlyA(i) => Op::OnlyA(i + pre),
        Op::OnlyB(j) => Op::OnlyB(j + pre),
    }));
    let (sa, sb) = (a.len() - suf, b.len() - suf);
    ops.extend((0..suf).map(|k| Op::Same(sa + k, sb + k)));
    ops
}

fn myers(a: &[u32], b: &[u32], max_d: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    if n == 0 || m == 0 {
        let mut ops: Vec<Op> = (0..a.len()).map(Op::OnlyA).collect();
        ops.extend((0..b.len()).map(Op::OnlyB));
        return Some(ops);
    }
    let max = (max_d as isize).min(n + m);
    let off = max + 1;
    let mut v = vec![0isize; (2 * max + 3) as usize];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max {
        trace.push(v[(off - d) as usize..=(off + d) as usize].to_vec());
        let mut k = -d;
        while k <= d {
            let down = k == -d || (k != d && v[(off + k - 1) as usize] < v[(off + k + 1) as usize]);
            let mut x = if down {
                v[(off + k + 1) as usize]
            } else {
                v[(off + k - 1) as usize] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(off + k) as usize] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, n, m, d));
            }
            k += 2;
        }
    }
    None
}

fn backtrack(trace: &[Vec<isize>], n: isize, m: isize, dmax: isize) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=dmax).rev() {
        let prev = &trace[d as usize];
        let get = |k: isize| prev[(k + d) as usize];
        let k = x - y;
        let pk = if k == -d || (k != d && get(k - 1) < get(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let px = get(pk);
        let py = px - pk;
        let (mx, my) = if pk == k + 1 {
            (px, py + 1)
        } else {
            (px + 1, py)
        };
        while x > mx && y > my {
            ops.push(Op::Same((x - 1) as usize, (y - 1) as usize));
            x -= 1;
            y -= 1;
        }
        if pk == k + 1 {
            ops.push(Op::OnlyB(py as usize));
        } else {
            ops.push(Op::OnlyA(px as usize));
        }
        x = px;
        y = py;
    }
    while x > 0 && y > 0 {
        ops.push(Op::Same((x - 1) as usize, (y - 1) as usize));
        x -= 1;
        y -= 1;
    }
    ops.reverse();
    ops
}

/// Linear-time fallback: on a mismatch, resync at the nearest common key
/// within [`WINDOW`] on both sides (smallest skip), else skip one on each.
fn greedy(a: &[u32], b: &[u32]) -> Vec<Op> {
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(a.len().max(b.len()));
    let mut first: HashMap<u32, usize> = HashMap::new();
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
            continue;
        }
        first.clear();
        for (dj, key) in b[j..(j + WINDOW).min(b.len())].iter().enumerate() {
            first.entry(*key).or_insert(dj);
        }
        let best = a[i..(i + WINDOW).min(a.len())]
            .iter()
            .enumerate()
            .filter_map(|(di, key)| first.get(key).map(|&dj| (di + dj, di, dj)))
            .min();
        let (di, dj) = best.map(|(_, di, dj)| (di, dj)).unwrap_or((1, 1));
        ops.extend((i..i + di).map(Op::OnlyA));
        ops.extend((j..j + dj).map(Op::OnlyB));
        i += di;
        j += dj;
    }
    ops.extend((i..a.len()).map(Op::OnlyA));
    ops.extend((j..b.len()).map(Op::OnlyB));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: &[u32], b: &[u32], ops: &[Op]) -> usize {
        let (mut i, mut j, mut edits) = (0, 0, 0);
        for op in ops {
            match *op {
                Op::Same(x, y) => {
                    assert_eq!((x, y), (i, j));
                    assert_eq!(a[x], b[y]);
                    i += 1;
                    j += 1;
                }
                Op::OnlyA(x) => {
                    assert_eq!(x, i);
                    i += 1;
                    edits += 1;
                }
                Op::OnlyB(y) => {
                    assert_eq!(y, j);
                    j += 1;
                    edits += 1;
                }
            }
        }
        assert_eq!((i, j), (a.len(), b.len()));
        edits
    }

    #[test]
    fn minimal_scripts() {
        let cases: &[(&[u32], &[u32], usize)] = &[
            (&[1, 2, 3], &[1, 2, 3], 0),
            (&[1, 2, 3], &[1, 3], 1),
            (&[1, 3], &[1, 2, 3], 1),
            (&[1, 2, 3, 4, 5], &[1, 9, 3, 4, 8, 5], 3),
            (&[], &[1, 2], 2),
            (&[7, 1, 2, 3], &[1, 2, 3, 7], 2),
        ];
        for (a, b, d) in cases {
            let ops = align(a, b, MAX_D);
            assert_eq!(check(a, b, &ops), *d, "{a:?} {b:?} {ops:?}");
        }
    }

    #[test]
    fn fallback_is_valid_and_resyncs() {
        let a: Vec<u32> = (0..5000).collect();
        let mut b = a.clone();
        for k in (0..5000).step_by(7) {
            b[k] = 100_000 + k as u32;
        }
        let ops = align(&a, &b, 50);
        let edits = check(&a, &b, &ops);
        assert!(edits <= 2 * 715, "{edits}");
        assert_eq!(check(&a, &b, &align(&a, &b, MAX_D)), 2 * 715);
    }
}
