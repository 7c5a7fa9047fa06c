//! MIN and MAX through an index (`plan/src/select/minmax.rs`) against a
//! model: random tables with NULLs and duplicates, random WHERE ranges,
//! before and after deletes and updates. Each query's answer must be the
//! model's (computed here from the rows), and its EXPLAIN must show the
//! index read (a Limit over an index scan), so the model is compared with
//! the path under test.

mod common;

use common::*;

/// A value below `n` from the shared generator, as a signed number.
fn ri(rng: &mut Rng, n: u64) -> i64 {
    rng.below(n) as i64
}

fn show(v: Option<i64>) -> String {
    v.map_or(String::new(), |x| x.to_string())
}

#[test]
fn min_and_max_read_through_an_index_give_the_full_scans_answer() {
    let srv = Server::start();
    for seed in 1..=3u64 {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed * 0x1234_5678_9abc));
        let n = 200 + ri(&mut rng, 300);
        // (id, a, b): a NULL one time in five, b never.
        let mut rows: Vec<(i64, Option<i64>, i64)> = (0..n)
            .map(|id| {
                let a = (ri(&mut rng, 5) != 0).then(|| ri(&mut rng, 1000) - 500);
                (id, a, ri(&mut rng, 50))
            })
            .collect();
        let values: Vec<String> = rows
            .iter()
            .map(|(id, a, b)| {
                format!(
                    "({id}, {}, {b})",
                    a.map_or("NULL".into(), |x| x.to_string())
                )
            })
            .collect();
        ok(
            &srv,
            &format!(
                "DROP TABLE IF EXISTS m; CREATE TABLE m (id int, a int, b int); \
                 CREATE INDEX m_a ON m (a); INSERT INTO m VALUES {};",
                values.join(", ")
            ),
        );
        for round in 0..12 {
            if round == 6 {
                // Change the table: delete some extremes, NULL some values.
                ok(&srv, "DELETE FROM m WHERE a > 400 OR a < -450");
                ok(&srv, "UPDATE m SET a = NULL WHERE b = 7");
                rows.retain(|r| r.1.is_none_or(|a| (-450..=400).contains(&a)));
                for r in rows.iter_mut().filter(|r| r.2 == 7) {
                    r.1 = None;
                }
            }
            let (lo, hi) = (ri(&mut rng, 1100) - 550, ri(&mut rng, 1100) - 550);
            let bmax = ri(&mut rng, 60);
            let sql = format!(
                "SELECT min(a), max(a) FROM m WHERE a >= {lo} AND a <= {hi} AND b < {bmax}"
            );
            let plan = ok(&srv, &format!("EXPLAIN {sql}"));
            assert!(
                plan.contains("Limit") && plan.contains("Index Scan Backward using m_a"),
                "seed {seed}: {sql}\n{plan}"
            );
            let chosen = rows
                .iter()
                .filter_map(|&(_, a, b)| a.filter(|&a| a >= lo && a <= hi && b < bmax));
            let want = format!("{}|{}", show(chosen.clone().min()), show(chosen.max()));
            assert_eq!(ok(&srv, &sql).trim(), want, "seed {seed}: {sql}");
            let all = rows.iter().filter_map(|r| r.1);
            let want = format!("{}|{}", show(all.clone().min()), show(all.max()));
            assert_eq!(
                ok(&srv, "SELECT min(a), max(a) FROM m").trim(),
                want,
                "seed {seed}"
            );
        }
    }
}
