//! Arrays of zeros that are added into at random: written before they are read.
//!
//! `vec![0; n]` of a large `n` takes fresh pages from the kernel, which maps every page to one
//! shared page of zeros until it is written. A counter added into (`acc[pair] += v`) reads its
//! page first: the read maps the shared page, and the write just after faults again to get a page
//! of its own, and that second fault makes the kernel flush the page from every core's TLB by
//! interrupting the other cores, which are busy with the same process. Writing the zeros first
//! takes each page in one fault, without the interrupts: in `score L.csv` (2,000,000 pairs, a
//! totals array on each thread) the double faults were 3.7% of the process's CPU.

/// `n` zeros, written (see the module's documentation).
pub fn written<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    // The compiler may otherwise turn an allocation followed by zeros into one zeroed
    // allocation, the very thing avoided here.
    std::hint::black_box(&mut v);
    v.resize(n, T::default());
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn holds_n_zeros() {
        assert_eq!(super::written::<i64>(3), vec![0, 0, 0]);
        assert_eq!(super::written::<f64>(0), Vec::<f64>::new());
        assert!(super::written::<u32>(1 << 20).iter().all(|&x| x == 0));
    }
}
