//! The core's small map keeps keys in order, and reads and writes the same
//! JSON as `BTreeMap` (a stored tool's annotations are written this way).

use std::collections::BTreeMap;
use toolgate::vecmap::VecMap;

#[test]
fn keys_stay_sorted_and_unique_whatever_the_insertion_order() {
    let mut map = VecMap::new();
    for (k, v) in [(5, "e"), (1, "a"), (3, "c"), (1, "A"), (4, "d")] {
        map.insert(k, v);
    }
    assert_eq!(map.keys().copied().collect::<Vec<_>>(), [1, 3, 4, 5]);
    assert_eq!(map.get(&1), Some(&"A"), "a second insert replaces");
    assert_eq!(map.remove(&3), Some("c"));
    assert_eq!(map.remove(&3), None);
    *map.get_or_insert_with(2, || "b") = "B";
    assert_eq!(map.get_or_insert_with(2, || "never"), &"B");
    map.retain(|k, _| k % 2 == 0);
    assert_eq!(map.iter().collect::<Vec<_>>(), [(&2, &"B"), (&4, &"d")]);
}

#[test]
fn the_same_json_as_a_btreemap() {
    let pairs = [(10_u64, "ten"), (2, "two"), (33, "thirty-three")];
    let ours: VecMap<u64, &str> = pairs.into_iter().collect();
    let std: BTreeMap<u64, &str> = pairs.into_iter().collect();
    let written = serde_json::to_string(&ours).expect("writes");
    assert_eq!(written, serde_json::to_string(&std).expect("writes"));
    let read: VecMap<u64, String> =
        serde_json::from_str(r#"{"33": "x", "2": "y", "2": "z"}"#).expect("reads");
    assert_eq!(
        read.iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect::<Vec<_>>(),
        [(2, "z"), (33, "x")]
    );
    assert!(serde_json::from_str::<VecMap<u64, String>>("[1]").is_err());
}
