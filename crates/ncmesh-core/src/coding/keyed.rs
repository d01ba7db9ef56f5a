//! Small keyed lists: a node sees a handful of flows or neighbours, so a `Vec` searched
//! in order serves as its map (no hashing; iteration in insertion order, so results never
//! depend on a hash seed).

/// The element of `v` that `is` picks, pushed at the end as `make()` if there is none.
pub fn find_or_push<T>(
    v: &mut Vec<T>,
    is: impl Fn(&T) -> bool,
    make: impl FnOnce() -> T,
) -> &mut T {
    let i = match v.iter().position(is) {
        Some(i) => i,
        None => {
            v.push(make());
            v.len() - 1
        }
    };
    &mut v[i]
}

/// The value of key `k` in a list of pairs, added as `make()` if missing.
pub fn value_or_insert_with<K: PartialEq + Copy, T>(
    v: &mut Vec<(K, T)>,
    k: K,
    make: impl FnOnce() -> T,
) -> &mut T {
    &mut find_or_push(v, |e| e.0 == k, || (k, make())).1
}

/// The value of key `k` in a list of pairs, added with its default if missing.
pub fn value_or_default<K: PartialEq + Copy, T: Default>(v: &mut Vec<(K, T)>, k: K) -> &mut T {
    value_or_insert_with(v, k, T::default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_in_place_or_pushed_at_the_end() {
        let mut v: Vec<(u32, u64)> = vec![(7, 1)];
        *value_or_default(&mut v, 9) += 5;
        *value_or_default(&mut v, 7) += 1;
        *value_or_insert_with(&mut v, 3, || 40) += 2;
        assert_eq!(v, [(7, 2), (9, 5), (3, 42)]);
        let mut w = vec![10u32, 20];
        *find_or_push(&mut w, |&x| x > 15, || 0) += 1;
        *find_or_push(&mut w, |&x| x > 99, || 5) += 1;
        assert_eq!(w, [10, 21, 6]);
    }
}
