//! Large arrays of zeros, written by the program rather than taken zeroed from the kernel.
//!
//! `vec![0; n]` of a large `n` takes fresh pages from the kernel, which maps every page to one
//! shared page of zeros until it is written. A counter added into (`acc[pair] += v`) reads its
//! page first: the read maps the shared page, and the write just after faults again to get a page
//! of its own, and that second fault makes the kernel flush the page from every core's TLB by
//! interrupting the other cores, which are busy with the same process. Writing the zeros first
//! takes each page in one fault, without the interrupts: in `score L.csv` (2,000,000 pairs, a
//! totals array on each thread) the double faults were 3.7% of the process's CPU.
//!
//! An array the caller then writes whole needs no zeros at all where it was already long enough
//! ([`resized`]).

/// `n` zeros, written (see the module's documentation): for counters added into at random.
pub(crate) fn written<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    // The compiler may otherwise turn an allocation followed by zeros into one zeroed
    // allocation, the very thing avoided here.
    std::hint::black_box(&mut v);
    v.resize(n, T::default());
    v
}

/// Elements below which a scan or a fill stays on one thread: a club's field of a few dozen
/// pairs, scored thousands of times in an ingest, would pay for splitting it each time.
pub(crate) const PARALLEL_MIN: usize = 1 << 16;

/// `v` made `n` long for a caller that then writes every element: what it held stays where it
/// reaches (a ranking's arrays kept from the scoring before are not zeroed again, 32 MB for
/// 2,000,000 pairs), and the rest is zeros written by every thread (fresh pages are megabytes,
/// and one thread taking them alone held up the rest).
pub(crate) fn resized<T: Copy + Default + Send + Sync>(v: &mut Vec<T>, n: usize) {
    use rayon::prelude::*;
    v.truncate(n);
    let more = n - v.len();
    v.par_extend(rayon::iter::repeat_n(T::default(), more).with_min_len(PARALLEL_MIN));
}

#[cfg(test)]
mod tests {
    #[test]
    fn holds_n_zeros() {
        assert_eq!(super::written::<i64>(3), vec![0, 0, 0]);
        assert_eq!(super::written::<f64>(0), Vec::<f64>::new());
        assert!(super::written::<u32>(1 << 20).iter().all(|&x| x == 0));
    }

    #[test]
    fn resized_to_n_whatever_it_held() {
        let mut v = vec![7u64; 5];
        super::resized(&mut v, 3);
        assert_eq!(v, vec![7, 7, 7]);
        super::resized(&mut v, 1 << 20);
        assert_eq!(v.len(), 1 << 20);
        assert_eq!(v[..3], [7, 7, 7]);
        assert!(v[3..].iter().all(|&x| x == 0));
    }
}
