//! PostgreSQL's qsort (src/include/lib/sort_template.h), for the few
//! places whose result depends on how equal elements end up ordered:
//! ts_rank keeps the first of the query operands that share a word after
//! sorting them, and which one that is (a prefix operand or not) changes
//! the rank. Insertion sort below 7 elements, a presorted check, then
//! Bentley-McIlroy three-way partitioning with median-of-three (ninther
//! past 40) pivots — step for step, so ties land where PostgreSQL's do.

use std::cmp::Ordering;

fn med3<T>(v: &[T], a: usize, b: usize, c: usize, cmp: &impl Fn(&T, &T) -> Ordering) -> usize {
    if cmp(&v[a], &v[b]) == Ordering::Less {
        if cmp(&v[b], &v[c]) == Ordering::Less {
            b
        } else if cmp(&v[a], &v[c]) == Ordering::Less {
            c
        } else {
            a
        }
    } else if cmp(&v[b], &v[c]) == Ordering::Greater {
        b
    } else if cmp(&v[a], &v[c]) == Ordering::Less {
        a
    } else {
        c
    }
}

fn swapn<T>(v: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        v.swap(a + i, b + i);
    }
}

/// Sort `v` as pg_qsort would.
pub fn pg_qsort<T>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let mut v = v;
    loop {
        let n = v.len();
        if n < 7 {
            for pm in 1..n {
                let mut pl = pm;
                while pl > 0 && cmp(&v[pl - 1], &v[pl]) == Ordering::Greater {
                    v.swap(pl, pl - 1);
                    pl -= 1;
                }
            }
            return;
        }
        if (1..n).all(|i| cmp(&v[i - 1], &v[i]) != Ordering::Greater) {
            return;
        }
        let mut pm = n / 2;
        if n > 7 {
            let mut pl = 0;
            let mut pn = n - 1;
            if n > 40 {
                let d = n / 8;
                pl = med3(v, pl, pl + d, pl + 2 * d, cmp);
                pm = med3(v, pm - d, pm, pm + d, cmp);
                pn = med3(v, pn - 2 * d, pn - d, pn, cmp);
            }
            pm = med3(v, pl, pm, pn, cmp);
        }
        v.swap(0, pm);
        let (mut pa, mut pb) = (1usize, 1usize);
        let (mut pc, mut pd) = (n as isize - 1, n as isize - 1);
        loop {
            while pb as isize <= pc {
                let r = cmp(&v[pb], &v[0]);
                if r == Ordering::Greater {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pa, pb);
                    pa += 1;
                }
                pb += 1;
            }
            while pb as isize <= pc {
                let r = cmp(&v[pc as usize], &v[0]);
                if r == Ordering::Less {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pc as usize, pd as usize);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb as isize > pc {
                break;
            }
            v.swap(pb, pc as usize);
            pb += 1;
            pc -= 1;
        }
        let pn = n;
        let d1 = pa.min(pb - pa);
        swapn(v, 0, pb - d1, d1);
        let d1 = ((pd - pc) as usize).min(pn - pd as usize - 1);
        swapn(v, pb, pn - d1, d1);
        let d1 = pb - pa;
        let d2 = (pd - pc) as usize;
        let whole = v;
        if d1 <= d2 {
            if d1 > 1 {
                pg_qsort(&mut whole[..d1], cmp);
            }
            if d2 > 1 {
                v = &mut whole[pn - d2..];
                continue;
            }
        } else {
            if d2 > 1 {
                pg_qsort(&mut whole[pn - d2..], cmp);
            }
            if d1 > 1 {
                v = &mut whole[..d1];
                continue;
            }
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_a_sort() {
        let mut seed = 12345u64;
        for n in 0..200 {
            let mut v: Vec<u32> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (seed >> 33) as u32 % 17
                })
                .collect();
            let mut w = v.clone();
            pg_qsort(&mut v, &|a: &u32, b: &u32| a.cmp(b));
            w.sort();
            assert_eq!(v, w);
        }
    }
}
