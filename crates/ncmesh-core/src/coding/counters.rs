//! A coding family's per-node counters, declared once: `family_counters!` takes the
//! family's result-column prefix and one line per counter (its doc comment, field and
//! unit) and makes the struct, the column names, their units and meanings (the generated
//! result-column reference reads them) and the values in the same order, so a name and
//! its value cannot drift apart.

/// One counter's result column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterSpec {
    /// The column's name: the family's prefix and the field's name.
    pub name: &'static str,
    /// What it counts in (`packets`, `frames`, `µs`, `per mille`, ...).
    pub unit: &'static str,
    /// The field's doc comment, one line per source line.
    pub meaning: &'static str,
}

impl CounterSpec {
    /// The meaning as one line of text.
    pub fn meaning_line(&self) -> String {
        self.meaning
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Declares a family's counters:
///
/// ```ignore
/// family_counters! {
///     /// What a node's layer counted.
///     pub struct FooCounters, prefix "foo_" {
///         /// Frames sent.
///         sent: "frames",
///     }
/// }
/// ```
///
/// makes `pub struct FooCounters { pub sent: u64 }` (`Default`, `Copy`), `SPECS` (one
/// [`CounterSpec`] per field, column `foo_sent`), `N`, `values()` in `SPECS` order and
/// `report(out)`, which appends `(column, value)` pairs as `CodingScheme::counters` wants.
#[macro_export]
macro_rules! family_counters {
    (
        $(#[$meta:meta])*
        pub struct $name:ident, prefix $prefix:literal {
            $(
                #[doc = $doc:literal]
                $(#[doc = $more:literal])*
                $field:ident : $unit:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name {
            $(
                #[doc = $doc]
                $(#[doc = $more])*
                pub $field: u64,
            )*
        }

        impl $name {
            /// Every counter's column, unit and meaning, in `values` order.
            pub const SPECS: &'static [$crate::coding::counters::CounterSpec] = &[$(
                $crate::coding::counters::CounterSpec {
                    name: concat!($prefix, stringify!($field)),
                    unit: $unit,
                    meaning: concat!($doc $(, "\n", $more)*),
                },
            )*];

            /// How many counters the family has.
            pub const N: usize = Self::SPECS.len();

            /// The counters in `SPECS` order.
            pub fn values(&self) -> [u64; Self::N] {
                [$(self.$field),*]
            }

            /// Appends `(column, value)` for every counter, in `SPECS` order.
            pub fn report(&self, out: &mut Vec<(&'static str, u64)>) {
                out.extend(Self::SPECS.iter().map(|s| s.name).zip(self.values()));
            }
        }
    };
}

#[cfg(test)]
#[allow(unreachable_pub)]
mod tests {
    crate::family_counters! {
        /// Test family.
        pub struct Demo, prefix "demo_" {
            /// Frames sent.
            sent: "frames",
            /// Longest wait,
            /// microseconds.
            wait_max: "µs",
        }
    }

    #[test]
    fn names_units_meanings_and_values_line_up() {
        let d = Demo {
            sent: 3,
            wait_max: 7,
        };
        assert_eq!(Demo::N, 2);
        let names: Vec<&str> = Demo::SPECS.iter().map(|s| s.name).collect();
        assert_eq!(names, ["demo_sent", "demo_wait_max"]);
        assert_eq!(Demo::SPECS[1].unit, "µs");
        assert_eq!(Demo::SPECS[1].meaning_line(), "Longest wait, microseconds.");
        let mut out = Vec::new();
        d.report(&mut out);
        assert_eq!(out, [("demo_sent", 3), ("demo_wait_max", 7)]);
    }
}
