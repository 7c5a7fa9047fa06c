//! Catalog: tables, columns, indexes, sequences (owned by the query engine).

pub struct Catalog {}

impl Catalog {
    pub fn new() -> Catalog {
        Catalog {}
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}
